import { MemoryLog } from "../../firmware/ModuleLog.js";
import { Module, type ModuleOptions } from "../../firmware/Module.js";
import { SimPowerSource } from "../../firmware/PowerSource.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { MemoryKvStore } from "../../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import type { JsonObject } from "../../core/json.js";

export interface TestModule {
  readonly module: Module;
  readonly clock: FakeClock;
  readonly store: MemoryKvStore;
  readonly power: SimPowerSource;
  readonly log: MemoryLog;
  /** Sends a request object; returns the reply (throws for a cmd, use module.request for those). */
  req(request: JsonObject): Promise<JsonObject>;
  /** Sends a raw line (without newline) and returns the raw reply text. */
  line(text: string): Promise<string | undefined>;
  /** Reboots the module on the same flash. */
  reboot(): Promise<TestModule>;
}

/** A module on a fake clock, seeded randomness and memory flash. */
export async function bootTestModule(
  options: Partial<ModuleOptions> & { seed?: number; capacity?: number } = {},
): Promise<TestModule> {
  const clock = (options.clock as FakeClock | undefined) ?? new FakeClock();
  const store =
    (options.store as MemoryKvStore | undefined) ?? new MemoryKvStore({ capacity: options.capacity });
  const power = (options.power as SimPowerSource | undefined) ?? new SimPowerSource();
  const log = new MemoryLog();
  const module = await Module.boot({
    ...options,
    clock,
    random: options.random ?? new SeededRandom(options.seed ?? 1),
    store,
    power,
    log,
  });
  const encoder = new TextEncoder();
  const fixture: TestModule = {
    module,
    clock,
    store,
    power,
    log,
    async req(request) {
      const reply = await module.request(request);
      if (!reply) throw new Error("no reply (was it a cmd?)");
      return reply;
    },
    line: (text) => module.handleLine(encoder.encode(text)),
    async reboot() {
      await module.close();
      return bootTestModule({ ...options, clock, store, power });
    },
  };
  return fixture;
}
