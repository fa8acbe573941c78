import type { JsonObject } from "../../../core/json.js";
import type { SessionOutcome } from "../../../firmware/sync/SyncEngine.js";
import type { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { SyncWorld } from "../../sync/support/syncWorld.js";

export const MINUTE = 60_000;

/** An in-process hub and one module on a fake clock, with every session the module ran. */
export interface ModesWorld {
  readonly world: SyncWorld;
  readonly sim: SimulatedModule;
  /** Sessions so far (re-subscribed after a restart by `record`). */
  readonly sessions: SessionOutcome[];
  /** Clock ms when the world started. */
  readonly t0: number;
  req(request: JsonObject): Promise<JsonObject>;
  /** Advances the clock `ms` a minute at a time, letting each sync finish before going on. */
  run(ms: number, stepMs?: number): Promise<void>;
  /** Minutes since t0 of each session start (`filter` picks some). */
  starts(filter?: (s: SessionOutcome) => boolean): number[];
  record(): void;
  close(): Promise<void>;
}

export async function modesWorld(options: Parameters<SyncWorld["module"]>[0] = {}): Promise<ModesWorld> {
  const world = await SyncWorld.start("in-process");
  const sim = await world.module(options);
  const sessions: SessionOutcome[] = [];
  const t0 = world.clock.now();
  const self: ModesWorld = {
    world,
    sim,
    sessions,
    t0,
    req: (request) => world.req(sim, request),
    async run(ms, stepMs = MINUTE) {
      const end = world.clock.now() + ms;
      while (world.clock.now() < end) {
        await world.clock.advance(Math.min(stepMs, end - world.clock.now()));
        await sim.module.sync.idle();
      }
    },
    starts: (filter = () => true) => sessions.filter(filter).map((s) => (s.started - t0) / MINUTE),
    record() {
      sim.module.sync.onSession((outcome) => sessions.push(outcome));
    },
    close: () => world.close(),
  };
  self.record();
  return self;
}
