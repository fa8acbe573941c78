import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { SimHubLink } from "../../../firmware/radio/SimHubLink.js";
import type { SessionOutcome } from "../../../firmware/sync/SyncEngine.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";

/**
 * A session that goes as it should has its end kept in a turn (its sync state, usage and energy
 * counters, `SyncEngine.onEnd`), and its outcome says so (`kept`), so that outcome listeners do
 * not do again what the end's listeners did: the energy meter charges every session once, whether
 * its end was kept with the open's reply, in a turn of its own, or not at all (it failed).
 */
describe("a session's outcome", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  let outcomes: SessionOutcome[];

  beforeEach(async () => {
    hub = await InProcessHub.start({ clock });
    sim = await SimulatedModule.boot({
      clock,
      seed: "kept-outcomes",
      timeKnown: true,
      hub: hub.connection(),
    });
    outcomes = [];
    sim.module.sync.onSession((outcome) => outcomes.push(outcome));
  });
  afterEach(async () => {
    await sim.close();
    await hub.close();
  });

  const req = async (request: JsonObject) => (await sim.module.request(request))!;
  async function sync(): Promise<SessionOutcome> {
    const before = outcomes.length;
    await req({ req: "hub.sync" });
    await sim.module.sync.idle();
    expect(outcomes).toHaveLength(before + 1);
    return outcomes[before]!;
  }
  const sessions = () => sim.module.energy.report().sessions;

  it("says its end was kept when it went well, and is charged once", async () => {
    // The first session proves the key (hello, open, close); the next one is the open alone.
    for (const note of [{ temp: 1 }, { temp: 2 }]) {
      await req({ req: "note.add", file: "sensors.qo", body: note });
      const before = sessions();
      const outcome = await sync();
      expect(outcome).toMatchObject({ ok: true, kept: true });
      expect(sessions()).toBe(before + 1);
      await clock.advance(60_000);
    }
    // The counters kept in flash are the meter's: nothing was charged twice after the save.
    const saved = sim.module.notebox.config<{ sessions: number }>("card.energy");
    expect(saved?.sessions).toBe(sessions());
  });

  it("says nothing was kept when it failed, and is charged once all the same", async () => {
    await sync();
    await clock.advance(60_000);
    await req({ req: "note.add", file: "sensors.qo", body: { temp: 3 } });
    (sim.hubLink as SimHubLink).fail({ failure: "dropped", when: (r) => r.type === "open" });
    const before = sessions();
    const outcome = await sync();
    expect(outcome.ok).toBe(false);
    expect(outcome.kept).toBeUndefined();
    expect(sessions()).toBe(before + 1);
    // The failed session's counters are saved in a turn of its own, before the next request's.
    await req({ req: "hub.sync.status" });
    expect(sim.module.notebox.config<{ sessions: number }>("card.energy")?.sessions).toBe(sessions());
  });
});
