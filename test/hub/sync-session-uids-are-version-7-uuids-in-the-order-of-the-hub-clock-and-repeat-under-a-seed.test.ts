import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SeededRandom } from "../../core/SeededRandom.js";
import { HubIds } from "../../hub/HubIds.js";
import { sqliteHere } from "../support/postgres.js";
import { SyncFixture } from "./sync/support/syncFixture.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The milliseconds a version-7 UUID carries (its first 48 bits). */
const msOf = (uid: string) => parseInt(uid.replace(/-/g, "").slice(0, 12), 16);

/**
 * A sync session's UID is a version-7 UUID of the hub's clock (sessions are keyed by it, and
 * events indexed by it: rows appended to their indexes, not scattered one page each), sorting in
 * the order the sessions began even when the clock stands still or steps back; seeded, it repeats.
 */
describe("time-ordered UUIDs (HubIds.timeUuid)", () => {
  it("sort in the order they were made, carry the clock's milliseconds, and repeat under a seed", () => {
    const times = fc.array(fc.integer({ min: 0, max: 2 ** 47 }), { minLength: 1, maxLength: 200 });
    fc.assert(
      fc.property(times, fc.integer(), (ms, seed) => {
        const ids = new HubIds(new SeededRandom(seed));
        const again = new HubIds(new SeededRandom(seed));
        const uids = ms.map((t) => ids.timeUuid(t));
        expect(ms.map((t) => again.timeUuid(t))).toEqual(uids);
        let latest = -1;
        for (const [i, uid] of uids.entries()) {
          expect(uid).toMatch(V7);
          if (i > 0) expect(uid > uids[i - 1]!).toBe(true);
          latest = Math.max(latest, ms[i]!);
          // The clock's time, or a little after the latest when the clock went back (4096 per ms).
          expect(msOf(uid) - latest).toBeGreaterThanOrEqual(0);
          expect(msOf(uid) - latest).toBeLessThanOrEqual(Math.ceil(uids.length / 2048));
        }
      }),
    );
  });

  it("are random where a clock is not (unseeded)", () => {
    const a = new HubIds().timeUuid(1_767_225_600_000);
    const b = new HubIds().timeUuid(1_767_225_600_000);
    expect(a).toMatch(V7);
    expect(a.slice(0, 13)).toBe(b.slice(0, 13));
    expect(a.slice(19)).not.toBe(b.slice(19));
  });
});

describe.runIf(sqliteHere())("a sync session's UID", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("in process", { backend: "sqlite" });
  });
  afterAll(async () => hub.close());

  it("is a version-7 UUID of the hub's clock when the session opened, later sessions sorting after", async () => {
    const module = await hub.module();
    const opened: { session: string; at: number }[] = [];
    for (const step of [0, 0, 60_000, 1]) {
      await hub.clock.advance(step);
      const at = hub.clock.now();
      const reply = await module.open();
      opened.push({ session: reply.session as string, at });
    }
    for (const { session, at } of opened) {
      expect(session).toMatch(V7);
      expect(msOf(session)).toBe(at);
    }
    const uids = opened.map((o) => o.session);
    expect([...uids].sort()).toEqual(uids);
    expect(new Set(uids).size).toBe(uids.length);
  });
});
