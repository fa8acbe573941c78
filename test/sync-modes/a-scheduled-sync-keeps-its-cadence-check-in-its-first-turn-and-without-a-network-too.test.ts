import { afterEach, describe, expect, it, vi } from "vitest";
import { SCHEDULE_KEY, type ScheduleRecord } from "../../firmware/sync/SyncSchedule.js";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

/**
 * The schedule keeps the cadence's last checks in flash (a restart goes on from them). A check
 * that starts a sync keeps them in the session's first turn among the module's writers, not in a
 * turn of its own before it; a session that cannot start (no network) or fails keeps them all
 * the same.
 */
let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The module's turns (Notebox transactions) while the clock runs `ms` from now. */
async function turnsOver(world: ModesWorld, ms: number): Promise<number> {
  const spy = vi.spyOn(world.sim.module.notebox, "transact");
  try {
    await world.run(ms);
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

const record = (world: ModesWorld) => world.sim.module.notebox.config<ScheduleRecord>(SCHEDULE_KEY);

describe("a scheduled sync", () => {
  it("keeps its cadence check in the session's first turn", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", inbound: 60 });
    // The first session (at 60) starts the tracker session: the hub does not close it with its open.
    await w.run(90 * MINUTE);
    // The check at 120 starts a session the hub closes with its open: its first turn (the check
    // kept, the session's start) and the turn that applies the reply and keeps its end.
    expect(await turnsOver(w, 31 * MINUTE)).toBe(2);
    expect(w.starts()).toEqual([60, 120]);
    expect(record(w)?.inbound).toBe(w.t0 + 120 * MINUTE);
  });

  it("keeps it when the session cannot reach the network", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", inbound: 60 });
    await w.run(30 * MINUTE);
    w.sim.radio.outage("registration");
    await w.run(31 * MINUTE);
    expect(w.sessions.map((s) => s.ok)).toEqual([false]);
    expect(w.starts()).toEqual([60]);
    expect(record(w)?.inbound).toBe(w.t0 + 60 * MINUTE);
  });
});
