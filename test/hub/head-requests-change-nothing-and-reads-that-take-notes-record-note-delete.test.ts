import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "./support/endpoints.js";
import { TestHub } from "./support/hubFixture.js";
import { noteState } from "./support/noteState.js";
import { seedForEndpoints } from "./support/seedForEndpoints.js";

/**
 * HEAD is GET without the body and must never change state (RFC 9110 §9.3.2): no note taken, no
 * tracker moved. And a GET that takes notes (`delete=true`) is a deletion like any other, recorded
 * as the same `note.delete` event a DELETE records (defect c).
 */
describe("HEAD requests change nothing, and reads that take notes record note.delete", () => {
  let hub: TestHub;
  let values: Record<string, string>;
  let D: string;
  const n = (suffix: string): string => hub.p(`/devices/${D}${suffix}`);
  const add = (file: string, id: string | null, body: Record<string, unknown>) =>
    hub.store.notefiles.addNote(D, file, { noteId: id, body, payload: null }, hub.clock.now());

  beforeAll(async () => {
    hub = await TestHub.start();
    values = await seedForEndpoints(hub);
    D = values.D!;
    await add("data.qi", null, { q: 1 });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("answers HEAD like GET, and takes no note, moves no tracker", async () => {
    const trackers = ["t", "u"];
    const before = await noteState(hub, D, trackers);
    for (const path of [
      "/notes/config.db/setting?delete=true",
      "/notes/config.db/changes?delete=true",
      "/notes/config.db?delete=true",
      "/notes/data.qi?delete=true",
      "/notes/data.qi/changes?tracker=t&delete=true",
      "/notes/config.db/changes?tracker=u&max=1",
      "/notes/config.db/changes?tracker=u&stop=true",
    ]) {
      const head = await hub.request("HEAD", n(path));
      expect(head.status, path).toBe(200);
      expect(head.text, path).toBe("");
      expect(await noteState(hub, D, trackers), path).toBe(before);
    }
  });

  it("no GET endpoint changes anything when asked with HEAD", async () => {
    const trackers = ["t"];
    const before = await noteState(hub, D, trackers);
    const query = "delete=true&deleted=true&tracker=t&start=true&stop=true&max=1";
    for (const e of ENDPOINTS.filter((x) => x.method === "GET")) {
      const path = e.path.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? k);
      for (const as of ["owner", "developer"]) {
        const res = await hub.request("HEAD", `${path}?${query}`, { as });
        expect(res.status, path).not.toBe(500);
        expect(res.text, path).toBe("");
      }
    }
    expect(await noteState(hub, D, trackers)).toBe(before);
  });

  it("records a GET with delete=true as the same note.delete event a DELETE records", async () => {
    await add("taken.db", "by-delete", { v: 1 });
    await add("taken.db", "by-get", { v: 2 });
    const latestDelete = async () =>
      (await hub.get(n("/latest"))).json.latest_events.find((e: { file: string }) => e.file === "taken.db");

    expect((await hub.delete(n("/notes/taken.db/by-delete"), { as: "developer" })).status).toBe(200);
    const byDelete = await latestDelete();
    await hub.clock.advance(1000);
    const got = await hub.get(n("/notes/taken.db/by-get?delete=true"), { as: "developer" });
    expect(got.json).toMatchObject({ body: { v: 2 } });
    const byGet = await latestDelete();

    const shape = (e: Record<string, unknown>) => {
      const { event: _event, received: _received, when: _when, ...rest } = e;
      return rest;
    };
    expect(byDelete).toMatchObject({ req: "note.delete", note: "by-delete", updates: 1 });
    expect(shape(byGet)).toEqual({ ...shape(byDelete), note: "by-get" });
  });

  it("records each database note a notefile read takes", async () => {
    await add("batch.db", "one", { v: 1 });
    await add("batch.db", "two", { v: 2 });
    const balance = async (): Promise<number> =>
      (await hub.get(`/v1/organizations/${hub.orgUid}`)).json.plan.current_balance;
    const before = await balance();
    const res = await hub.get(n("/notes/batch.db?delete=true"), { as: "developer" });
    expect(Object.keys(res.json.notes)).toEqual(["one", "two"]);
    // Two deletions, two events (each billed like any event).
    expect(await balance()).toBe(before - 2);
    const latest = (await hub.get(n("/latest"))).json.latest_events;
    expect(latest.find((e: { file: string }) => e.file === "batch.db")).toMatchObject({
      req: "note.delete",
      note: expect.stringMatching(/^(one|two)$/),
      updates: 1,
    });
  });
});
