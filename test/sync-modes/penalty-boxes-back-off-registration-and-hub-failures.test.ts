import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PENALTY, hubWait, registrationWait } from "../../firmware/sync/PenaltyBox.js";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** Ms from the first attempt of each later attempt, by the formula (each wait rounded to the ms). */
function expectedStarts(waits: (n: number) => number, attempts: number): number[] {
  const out = [0];
  for (let n = 1; n < attempts; n++) out.push(out[n - 1]! + Math.round(waits(n) * MINUTE));
  return out;
}

describe("penalty boxes", () => {
  it("the registration box waits min, then (min + add·(n−1))·rate^(n−1) minutes, at most max", () => {
    const waits = [1, 2, 3, 4, 5, 6].map((n) => registrationWait(DEFAULT_PENALTY, n));
    expect(waits).toEqual([15, 37.5, 70.3125, 117.1875, 183.10546875, 274.658203125]);
    expect(registrationWait(DEFAULT_PENALTY, 40)).toBe(4320);
    expect([1, 2, 3, 4, 5, 12].map(hubWait)).toEqual([0, 15, 30, 60, 120, 1440]);
  });

  it("a continuous module without a network tries again exactly as the registration box says", async () => {
    w = await modesWorld();
    w.sim.radio.outage("registration");
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(600 * MINUTE, 30_000);
    const starts = w.sessions.map((s) => s.started - w!.t0);
    expect(starts).toEqual(expectedStarts((n) => registrationWait(DEFAULT_PENALTY, n), starts.length));
    expect(starts.length).toBe(6); // 0, 15, 52.5, 122.8, 240, 423.1
    expect(w.sessions.every((s) => s.connectFailure === "registration")).toBe(true);
    const status = await w.req({ req: "hub.sync.status" });
    expect(status["status"]).toMatch(/\{registration-failure\}\{network\}\{extended-network-failure\}/);
    expect(status["seconds"]).toBeGreaterThan(0);
    const penalty = await w.req({ req: "card.wireless.penalty" });
    expect(penalty).toMatchObject({ count: 6, seconds: status["seconds"] });
    expect(penalty["minutes"]).toBe(Math.floor(600 - 0));
  });

  it("card.wireless.penalty set changes the backoff, reset opens the box", async () => {
    w = await modesWorld();
    // No failures: the schema's "No Active Penalty" sample, {"minutes":0,"count":0}.
    expect(await w.req({ req: "card.wireless.penalty" })).toEqual({ minutes: 0, count: 0 });
    await w.req({ req: "card.wireless.penalty", set: true, min: 5, add: 10, rate: 2, max: 60 });
    w.sim.radio.outage("registration");
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(200 * MINUTE, 30_000);
    // 5, (5+10)·2 = 30, then capped at 60.
    expect(w.starts()).toEqual([0, 5, 35, 95, 155]);
    w.sim.radio.restore();
    await w.run(MINUTE);
    expect(w.sessions.length).toBe(5); // the radio is back, but the box holds until it opens
    const reset = await w.req({ req: "card.wireless.penalty", reset: true });
    expect(reset).toEqual({ minutes: 0, count: 0 });
    await w.run(MINUTE);
    expect(w.sessions.at(-1)).toMatchObject({ ok: true });
    await expect(w.req({ req: "card.wireless.penalty", set: true, rate: 0.5 })).rejects.toThrow(/rate/);
  });

  it("the hub box closes after the second failed connection and doubles from 15 minutes", async () => {
    w = await modesWorld();
    w.sim.radio.outage("hub");
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(120 * MINUTE, 30_000);
    // The first failure is retried after the continuous retry delay (15 min), then the box.
    expect(w.starts()).toEqual([0, 15, 30, 60, 120]);
    expect(w.sessions.every((s) => s.connectFailure === "hub")).toBe(true);
    const status = await w.req({ req: "hub.sync.status" });
    expect(status["status"]).toMatch(/connect delayed .*\{extended-service-failure\}/);
  });

  it("hub.sync waits out a box; allow:true lifts it; note.add limit:true asks for no sync while boxed", async () => {
    w = await modesWorld();
    w.sim.radio.outage("registration");
    await w.world.sync(w.sim);
    expect(w.sessions).toHaveLength(1);
    expect(w.sim.module.schedule.boxed()).toMatchObject({ kind: "registration", seconds: 900 });
    await w.req({ req: "hub.sync" });
    await w.sim.module.sync.idle();
    expect(w.sessions).toHaveLength(1);
    await w.req({ req: "note.add", body: { n: 1 }, sync: true, limit: true });
    expect(w.sim.module.syncRequests().size).toBe(0);
    await w.req({ req: "note.add", body: { n: 2 }, sync: true });
    expect(w.sim.module.syncRequests().size).toBe(1);
    expect(w.sim.module.schedule.nextSync()).toMatchObject({ why: "note", boxed: true });
    w.sim.radio.restore();
    await w.req({ req: "hub.sync", allow: true });
    await w.sim.module.sync.idle();
    expect(w.sessions.slice(1).every((s) => s.ok)).toBe(true);
    expect(w.sessions.slice(1).map((s) => s.why)).toContain("explicit");
    expect(w.sim.module.syncRequests().size).toBe(0);
    expect(w.sim.module.schedule.boxed()).toBeUndefined();
    expect((await w.req({ req: "hub.sync.status" }))["seconds"]).toBeUndefined();
  });

  it("a note asked to sync while boxed goes when the box opens", async () => {
    w = await modesWorld();
    w.sim.radio.outage("registration");
    await w.world.sync(w.sim);
    w.sim.radio.restore();
    await w.req({ req: "note.add", body: { n: 2 }, sync: true });
    await w.run(16 * MINUTE);
    expect(w.sessions.map((s) => [s.why, s.ok])).toEqual([
      ["explicit", false],
      ["note", true],
    ]);
    expect(w.starts()).toEqual([0, 15]);
  });
});
