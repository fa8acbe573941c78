import type { JsonObject } from "../../core/json.js";
import type { Random } from "../../core/Random.js";
import type { AttnPin } from "../../firmware/attn/AttnPin.js";
import type { Module } from "../../firmware/Module.js";
import { MemoryLog } from "../../firmware/ModuleLog.js";
import { SimPowerSource } from "../../firmware/PowerSource.js";
import { MemoryKvStore } from "../../firmware/storage/MemoryKvStore.js";
import { MemoryFlashFs } from "../../firmware/storage/flash/MemoryFlashFs.js";
import type { Variant, VariantName } from "../../firmware/Variant.js";
import type { World } from "../../firmware/world/World.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";

export interface TestModule {
  readonly module: Module;
  readonly simulated: SimulatedModule;
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

export interface TestModuleOptions {
  readonly clock?: FakeClock;
  readonly store?: MemoryKvStore;
  /** The flash images live on (kept across reboots like the store). */
  readonly images?: MemoryFlashFs;
  readonly power?: SimPowerSource;
  readonly random?: Random;
  readonly seed?: number;
  /** Flash capacity in bytes (memory flash). */
  readonly capacity?: number;
  readonly variant?: VariantName | string | Variant;
  readonly timeKnown?: boolean;
  readonly attnPin?: AttnPin;
  readonly binaryMax?: number;
  readonly maxRequestBytes?: number;
  readonly strictArgs?: boolean;
  readonly world?: World;
}

/** A module (runtime/SimulatedModule) on a fake clock, seeded randomness and memory flash. */
export async function bootTestModule(options: TestModuleOptions = {}): Promise<TestModule> {
  const clock = options.clock ?? new FakeClock();
  const store = options.store ?? new MemoryKvStore({ capacity: options.capacity });
  const images = options.images ?? new MemoryFlashFs();
  const power = options.power ?? new SimPowerSource();
  const log = new MemoryLog();
  const random = options.random;
  const simulated = await SimulatedModule.boot({
    clock,
    seed: options.seed ?? 1,
    ...(random ? { random: () => random } : {}),
    flash: { store, images },
    power,
    log,
    ...(options.variant !== undefined ? { variant: options.variant } : {}),
    ...(options.timeKnown !== undefined ? { timeKnown: options.timeKnown } : {}),
    ...(options.attnPin ? { attnPin: options.attnPin } : {}),
    ...(options.binaryMax !== undefined ? { binaryMax: options.binaryMax } : {}),
    ...(options.maxRequestBytes !== undefined ? { maxRequestBytes: options.maxRequestBytes } : {}),
    ...(options.strictArgs !== undefined ? { strictArgs: options.strictArgs } : {}),
    ...(options.world ? { world: options.world } : {}),
  });
  const module = simulated.module;
  const encoder = new TextEncoder();
  return {
    module,
    simulated,
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
      await simulated.close();
      return bootTestModule({ ...options, clock, store, power, images });
    },
  };
}
