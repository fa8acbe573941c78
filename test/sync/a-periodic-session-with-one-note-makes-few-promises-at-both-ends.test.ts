import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { InProcessHub } from "../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { promisesMadeBy } from "../support/promiseCount.js";

const MINUTE = 60_000;

/**
 * The periodic session's JavaScript at both ends (issue 26: a month of 5-minute syncs in under 3
 * s): a resumed session carrying one note, the module on its own schedule and the hub in the same
 * process, counted in promises made, each one a step of the event loop's microtasks and a call of
 * the store's promise hook. 232 a session before the global-transformation check answered at once,
 * the open's proof of a ticket, its zones and a known device's key and report taken without
 * waiting, and the event drains' ends no `finally` of their own; 207 after; 180 once a module's
 * request whose turn is free ran without awaiting it and the hub's messages stopped waiting on its
 * start and sweep.
 */
describe("a periodic session with one note", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  let sessions = 0;

  const req = async (request: JsonObject) => {
    const reply = await sim.module.request(request);
    expect(reply?.["err"]).toBeUndefined();
  };

  beforeAll(async () => {
    hub = await InProcessHub.start({ clock });
    sim = await SimulatedModule.boot({ clock, seed: "promises", timeKnown: true, hub: hub.connection() });
    sim.module.sync.onSession((outcome) => {
      expect(outcome.error).toBeUndefined();
      sessions++;
    });
    await req({ req: "hub.set", mode: "periodic", outbound: 5, inbound: 5 });
    // A reading a minute before each sync, as bench/clock.ts adds them.
    const reading = () => {
      clock.setTimer(reading, 5 * MINUTE);
      void req({ req: "note.add", file: "sensors.qo", body: { temp: 21 } });
    };
    clock.setTimer(reading, 4 * MINUTE);
    // The first sessions prove the key; the next ones resume with the ticket.
    await clock.advance(60 * MINUTE);
  });
  afterAll(async () => {
    await sim.close();
    await hub.close();
  });

  it("makes at most 185 promises at both ends", async () => {
    const before = sessions;
    const promises = await promisesMadeBy(() => clock.advance(100 * 5 * MINUTE));
    expect(sessions - before).toBe(100);
    expect(promises / 100).toBeLessThanOrEqual(185);
  });
});
