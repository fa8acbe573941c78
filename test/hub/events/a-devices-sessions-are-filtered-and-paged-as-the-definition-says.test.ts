import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";

const BASE = Date.UTC(2026, 1, 1) / 1000;

/** GET …/devices/{D}/sessions against the definition: dates, firstSync, paging to 10,000. */
describe("Get Device Sessions", () => {
  let hub: TestHub;
  let device: string;
  const sessions: SessionRecord[] = [];

  beforeAll(async () => {
    hub = await TestHub.start();
    device = (await hub.device({ serialNumber: "s-1" })).uid;
    for (let i = 0; i < 30; i++) {
      const s: SessionRecord = {
        uid: hub.ids.uuid(),
        deviceUid: device,
        projectUid: hub.projectUid,
        beganSec: BASE + i * 3600,
        endedSec: i % 5 === 4 ? null : BASE + i * 3600 + 60,
        firstSync: i % 10 === 0,
        data: { rat: "lte", tls: i % 2 === 0, period: { bytes_sent: 100 * i, bytes_rcvd: 10 * i } },
      };
      if (i === 7) s.data.when = BASE + 7 * 3600 + 30; // a note captured during the session
      await hub.store.telemetry.addSession(s);
      sessions.push(s);
    }
    // The same device UID's session in another project never shows here.
    await hub.store.telemetry.addSession({
      ...sessions[0]!,
      uid: hub.ids.uuid(),
      projectUid: hub.otherProjectUid,
    });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const get = (query: string) => hub.get(hub.p(`/devices/${device}/sessions?${query}`), { as: "viewer" });
  const uids = async (query: string): Promise<string[]> => {
    const res = await get(query);
    expect(res.status, res.text).toBe(200);
    return res.json.sessions.map((s: { session: string }) => s.session);
  };
  const newestFirst = (keep: (s: SessionRecord) => boolean) =>
    sessions
      .filter(keep)
      .map((s) => s.uid)
      .reverse();

  it("lists the device's sessions newest first, as the definition shows them", async () => {
    const res = await get("pageSize=2");
    expect(res.json).toEqual({
      sessions: [29, 28].map((i) => ({
        ...sessions[i]!.data,
        session: sessions[i]!.uid,
        device,
        when: sessions[i]!.beganSec,
        session_began: sessions[i]!.beganSec,
        ...(sessions[i]!.endedSec === null ? {} : { session_ended: sessions[i]!.endedSec }),
      })),
      has_more: true,
    });
    // `when` is the session's own when it has one.
    expect(
      (await get("startDate=" + (BASE + 7 * 3600) + "&endDate=" + (BASE + 7 * 3600))).json.sessions[0].when,
    ).toBe(BASE + 7 * 3600 + 30);
  });

  it("filters by when the session began (both ends inclusive) and by first sync", async () => {
    const start = BASE + 5 * 3600;
    const end = BASE + 12 * 3600;
    expect(await uids(`startDate=${start}&endDate=${end}`)).toEqual(
      newestFirst((s) => s.beganSec >= start && s.beganSec <= end),
    );
    expect(await uids(`startDate=${start}`)).toEqual(newestFirst((s) => s.beganSec >= start));
    expect(await uids(`endDate=${end}`)).toEqual(newestFirst((s) => s.beganSec <= end));
    expect(await uids("firstSync=true")).toEqual(newestFirst((s) => s.firstSync));
    expect(await uids("firstSync=false&pageSize=100")).toEqual(newestFirst(() => true));
    expect(await uids(`firstSync=true&startDate=${BASE + 1}`)).toEqual(
      newestFirst((s) => s.firstSync && s.beganSec > BASE),
    );
  });

  it("pages with pageSize 1 to 10,000 and an exact has_more", async () => {
    expect((await get("pageSize=10000")).json.sessions).toHaveLength(30);
    const last = await get("pageSize=10&pageNum=3");
    expect(last.json.has_more).toBe(false);
    expect(last.json.sessions.map((s: { session: string }) => s.session)).toEqual(
      newestFirst(() => true).slice(20),
    );
    expect((await get("pageSize=10&pageNum=4")).json).toEqual({ sessions: [], has_more: false });
  });

  it("refuses bad paging and dates with 400", async () => {
    for (const bad of [
      "pageSize=10001",
      "pageSize=0",
      "pageNum=0",
      "startDate=-5",
      "endDate=soon",
      `startDate=${BASE + 10}&endDate=${BASE}`,
      "firstSync=maybe",
    ]) {
      expectErrorBody(await get(bad), 400);
    }
  });
});
