import { sleep, type Clock } from "../core/Clock.js";
import type { Crypto } from "../core/Crypto.js";
import type { Random } from "../core/Random.js";
import { SeededRandom } from "../core/SeededRandom.js";
import type { AttnPin } from "../firmware/attn/AttnPin.js";
import type { LineHandler } from "../firmware/host/SerialSession.js";
import { Module, type ModuleOptions } from "../firmware/Module.js";
import { MemoryLog, type ModuleLog } from "../firmware/ModuleLog.js";
import { SimPowerSource } from "../firmware/PowerSource.js";
import type { HubLink } from "../firmware/radio/HubLink.js";
import { SimHubLink } from "../firmware/radio/SimHubLink.js";
import type { ProtocolReply } from "../protocol/messages.js";
import { HttpsHubLink } from "./HttpsHubLink.js";
import { SeededNodeCrypto } from "./SeededNodeCrypto.js";
import { SimRadioConditions } from "../firmware/radio/RadioConditions.js";
import { FlashKvStore, type FlashKvStoreOptions } from "../firmware/storage/flash/FlashKvStore.js";
import { PowerLossFlashFs, type PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import type { KvStore } from "../firmware/storage/KvStore.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import type { FlashFile, FlashFs } from "../firmware/storage/flash/FlashFs.js";
import { MemoryFlashFs } from "../firmware/storage/flash/MemoryFlashFs.js";
import type { Variant, VariantName } from "../firmware/Variant.js";
import type { Surroundings } from "../firmware/world/Surroundings.js";
import { World } from "../firmware/world/World.js";
import type { AuxPins } from "../firmware/world/AuxPins.js";
import { withAuxPins } from "../firmware/world/withAuxPins.js";

export interface SimulatedModuleOptions extends Pick<
  ModuleOptions,
  "maxRequestBytes" | "strictArgs" | "trace" | "binaryMax" | "timeKnown" | "dfu" | "energy" | "deviceUid"
> {
  readonly clock: Clock;
  /**
   * Seeds the module's identity, randomness and keys (default 1). Each boot draws fresh
   * randomness, repeatably: boot 0 from the seed, later boots from `seed/bootN`.
   */
  readonly seed?: number | string;
  /** Randomness per boot instead of `seed` (production: the operating system's). */
  readonly random?: (boot: number) => Random;
  readonly variant?: VariantName | string | Variant;
  /**
   * The flash: `memory` (default, of `capacity` bytes), `power-loss` (the real flash store on a
   * flash that can lose power: power losses mid-write and the recovery at the next boot are
   * real), or a store of the caller's (a flash directory at the edge).
   */
  readonly flash?:
    | { readonly memory: { readonly capacity?: number } }
    | { readonly powerLoss: Omit<FlashKvStoreOptions, "onClose"> }
    | { readonly store: KvStore; readonly images?: FlashFs };
  readonly power?: SimPowerSource;
  readonly radio?: SimRadioConditions;
  /** The hub the module syncs with (none by default: it cannot sync). */
  readonly hub?: HubConnection;
  readonly crypto?: Crypto;
  readonly log?: ModuleLog;
  /** The ATTN output toward the host (a GPIO line on a rig). */
  readonly attnPin?: AttnPin;
  /** The world around the module (position, motion, temperature, AUX lines); a new one by default. */
  readonly world?: World;
  /** AUX pins other than the world's simulated lines (a board's GPIO lines on a rig). */
  readonly auxPins?: AuxPins;
}

/** The hub's end of the sync protocol, as an in-process transport calls it (hub/sync). */
export interface DeviceSyncHandler {
  handle(
    request: unknown,
    transport: { readonly secure: boolean; readonly bytes?: number },
  ): Promise<ProtocolReply>;
}

/**
 * How a module reaches its hub: the very same hub code in this process (no sockets; fake-clock
 * tests and fleets), HTTPS to a hub elsewhere, or a link of the caller's. `product` is the
 * ProductUID the module uses until its host sets one with `hub.set product`.
 */
export type HubConnection = { readonly product?: string } & (
  | { readonly inProcess: DeviceSyncHandler; readonly secure?: boolean }
  | { readonly url: string; readonly ca?: string }
  | { readonly link: HubLink }
);

/** What happened when the module went down. */
export interface PowerOff {
  /** `cycle`: a clean power cycle; `loss`: the power failed (power-loss flash only). */
  readonly kind: "cycle" | "loss";
  readonly mode?: PowerLossMode;
  /** The flash write the power failed at (power-loss flash). */
  readonly step?: number;
}

export interface SimulatedModuleEvents {
  /** The module went down: links should stop delivering to it. */
  readonly powerOff?: (off: PowerOff) => void;
  /**
   * A module booted after a power cycle or loss (and, after a loss, the power is back): links
   * should attach to the new one.
   */
  readonly boot?: (module: Module) => void;
}

/**
 * One simulated module with everything around it: its flash, supply, radio, hub link and keys,
 * and the lifecycle a real one goes through (reboots, clean power cycles, power failing in the
 * middle of a flash write, recovery at the next boot). Links attach separately, through
 * `lineHandler()`, which follows the module across reboots. The CLI, the harness, the test
 * fixture, benchmarks and fleets all build their modules here.
 */
export class SimulatedModule {
  readonly clock: Clock;
  readonly power: SimPowerSource;
  readonly radio: SimRadioConditions;
  /** The world the module's sensors read, for a scenario or the CLI to drive; it outlives reboots. */
  readonly world: World;
  readonly #surroundings: Surroundings;
  readonly log: ModuleLog;
  readonly seed: number | string;
  readonly #ownWorld: World | undefined;
  readonly #options: SimulatedModuleOptions;
  readonly #store: KvStore | undefined;
  readonly #flashFs: PowerLossFlashFs | undefined;
  /** Where firmware images live: the flash the journal is on, or memory beside a memory store. */
  readonly #imagesFs: FlashFs | undefined;
  readonly #crypto: Crypto | undefined;
  readonly #hubLink: HubLink | undefined;
  readonly #events: SimulatedModuleEvents[] = [];
  #module!: Module;
  /** The flash store of the module now running; `dead` once its power went. */
  #flashGate: { dead: boolean } | undefined;
  #powerLossMode: PowerLossMode = "drop-unsynced";
  #powerOffMs = 0;
  #powerLosses = 0;
  #restoring: Promise<void> | undefined;
  #boots = 0;
  /** Bumped whenever the module goes down: a reply from an older generation is never delivered. */
  #generation = 0;
  #closed = false;

  private constructor(options: SimulatedModuleOptions) {
    this.#options = options;
    this.clock = options.clock;
    this.seed = options.seed ?? 1;
    this.power = options.power ?? new SimPowerSource();
    this.radio = options.radio ?? new SimRadioConditions(options.clock);
    this.#ownWorld = options.world ? undefined : new World({ clock: options.clock });
    this.world = options.world ?? this.#ownWorld!;
    this.#surroundings = options.auxPins ? withAuxPins(this.world, options.auxPins) : this.world;
    this.log = options.log ?? new MemoryLog();
    this.#crypto = options.crypto;
    this.#hubLink = options.hub ? this.#linkTo(options.hub) : undefined;
    const flash = options.flash ?? { memory: {} };
    if ("powerLoss" in flash) {
      this.#flashFs = new PowerLossFlashFs();
      this.#imagesFs = this.#flashFs;
      this.#store = undefined;
    } else if ("store" in flash) {
      this.#flashFs = undefined;
      this.#imagesFs = flash.images;
      this.#store = flash.store;
    } else {
      this.#flashFs = undefined;
      this.#imagesFs = new MemoryFlashFs();
      this.#store = new MemoryKvStore({ capacity: flash.memory.capacity });
    }
  }

  /** Powers the module on for the first time. */
  static async boot(options: SimulatedModuleOptions): Promise<SimulatedModule> {
    const simulated = new SimulatedModule(options);
    await simulated.#boot();
    return simulated;
  }

  /** The module as it is now (a power cycle or loss replaces it). */
  get module(): Module {
    return this.#module;
  }

  /** The power-loss flash, when the module runs on one. */
  get flash(): PowerLossFlashFs | undefined {
    return this.#flashFs;
  }

  /** Boots so far (1 after the first). */
  get boots(): number {
    return this.#boots;
  }

  /** How many times the power failed (`cutPower`, `armPowerLoss`). */
  get powerLosses(): number {
    return this.#powerLosses;
  }

  /** Resolves when the module is back after a power loss (undefined while it is up). */
  get restoring(): Promise<void> | undefined {
    return this.#restoring;
  }

  /** Listens to the module going down and coming back. Returns an unsubscribe function. */
  on(events: SimulatedModuleEvents): () => void {
    this.#events.push(events);
    return () => {
      const i = this.#events.indexOf(events);
      if (i >= 0) this.#events.splice(i, 1);
    };
  }

  /**
   * The module as a link's line handler, following it across reboots: a module that lost power
   * never answers what it was doing (the reply is dropped), as a real one would not.
   */
  lineHandler(): LineHandler {
    const generation = this.#generation;
    const deliver = <T>(reply: T): T | undefined => {
      this.#checkPower();
      return generation === this.#generation ? reply : undefined;
    };
    return {
      handleLine: async (line) => deliver(await this.#module.handleLine(line)),
      handleLineReply: async (line) => deliver(await this.#module.handleLineReply(line)),
      handleOverflow: async (length) => deliver(await this.#module.handleOverflow(length)),
    };
  }

  /** A clean power cycle: what was committed is on the flash; the module boots on it again. */
  async powerCycle(): Promise<void> {
    // A clean power-off keeps the energy counters (a power loss loses what was not saved).
    await this.#module.saveEnergy().catch(() => undefined);
    this.#generation++;
    this.#emit((e) => e.powerOff?.({ kind: "cycle" }));
    await this.#module.close();
    await this.#boot();
    this.#emit((e) => e.boot?.(this.#module));
  }

  /**
   * The power fails now, between requests: the flash keeps what `mode` says survived, and after
   * `offMs` the module boots and recovers. Needs the power-loss flash.
   */
  async cutPower(mode: PowerLossMode, offMs: number): Promise<void> {
    const fs = this.#needFlash();
    this.#powerLossMode = mode;
    this.#powerOffMs = offMs;
    fs.powerFail();
    this.#powerLost();
    await this.#restoring;
  }

  /** The power will fail at the `step`-th flash write from now (1 = the next one). */
  armPowerLoss(step: number, mode: PowerLossMode, offMs: number): void {
    const fs = this.#needFlash();
    if (!Number.isSafeInteger(step) || step < 1)
      throw new Error(`powerLossAt step must be >= 1, got ${step}`);
    this.#powerLossMode = mode;
    this.#powerOffMs = offMs;
    fs.failAtStep(fs.steps + step);
  }

  /** The link to the hub, when the module has one. */
  get hubLink(): HubLink | undefined {
    return this.#hubLink;
  }

  #linkTo(hub: HubConnection): HubLink {
    if ("link" in hub) return hub.link;
    if ("url" in hub) {
      return new HttpsHubLink({
        url: hub.url,
        ...(hub.ca ? { ca: hub.ca } : {}),
        radio: this.radio,
        clock: this.clock,
      });
    }
    const handler = hub.inProcess;
    const secure = hub.secure ?? true;
    return new SimHubLink((request, bytes) => handler.handle(request, { secure, bytes }), {
      clock: this.clock,
      radio: this.radio,
      secure,
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#restoring?.catch(() => undefined);
    this.radio.dispose();
    if (this.#module) await this.#module.close();
    this.#ownWorld?.dispose();
    if (this.#hubLink instanceof HttpsHubLink) this.#hubLink.close();
  }

  async #boot(): Promise<void> {
    const options = this.#options;
    const boot = this.#boots;
    const random =
      options.random?.(boot) ?? new SeededRandom(boot === 0 ? this.seed : `${this.seed}/boot${boot}`);
    this.#module = await Module.boot({
      clock: this.clock,
      random,
      store: this.#store ?? this.#flashStore(),
      variant: options.variant ?? "cell",
      power: this.power,
      radio: this.radio,
      world: this.#surroundings,
      ...(this.#imagesFs
        ? { images: this.#flashFs ? watchPower(this.#imagesFs, () => this.#checkPower()) : this.#imagesFs }
        : {}),
      ...(this.#hubLink ? { hubLink: this.#hubLink } : {}),
      ...(options.hub?.product ? { defaultProduct: options.hub.product } : {}),
      // Keys come from their own stream, so that they do not shift the module's other randomness.
      crypto: this.#crypto ?? new SeededNodeCrypto(new SeededRandom(`${this.seed}/keys/boot${boot}`)),
      log: this.log,
      timeKnown: options.timeKnown ?? false,
      ...(options.attnPin ? { attnPin: options.attnPin } : {}),
      ...(options.maxRequestBytes !== undefined ? { maxRequestBytes: options.maxRequestBytes } : {}),
      ...(options.strictArgs !== undefined ? { strictArgs: options.strictArgs } : {}),
      ...(options.trace !== undefined ? { trace: options.trace } : {}),
      ...(options.binaryMax !== undefined ? { binaryMax: options.binaryMax } : {}),
      ...(options.dfu ? { dfu: options.dfu } : {}),
      ...(options.energy ? { energy: options.energy } : {}),
      ...(options.deviceUid ? { deviceUid: options.deviceUid } : {}),
    });
    this.#boots++;
  }

  /** A FlashKvStore on the power-loss flash for one boot, watching for the power going. */
  #flashStore(): KvStore {
    const fs = this.#flashFs!;
    const flash = this.#options.flash;
    const store = new FlashKvStore(fs, flash && "powerLoss" in flash ? flash.powerLoss : {});
    const gate = { dead: false };
    this.#flashGate = gate;
    return {
      open: () => store.open(),
      usage: () => store.usage(),
      // A module whose power went cannot close its files; the next boot reopens the flash.
      close: () => (gate.dead ? Promise.resolve() : store.close()),
      commit: async (ops) => {
        try {
          await store.commit(ops);
        } finally {
          this.#checkPower();
        }
      },
    };
  }

  #checkPower(): void {
    if (this.#flashFs && !this.#flashFs.powered) this.#powerLost();
  }

  #needFlash(): PowerLossFlashFs {
    if (!this.#flashFs) throw new Error("a power loss needs the power-loss flash (flash: { powerLoss: {} })");
    return this.#flashFs;
  }

  /**
   * The power went (between requests, or in the middle of a flash write): the module never
   * answers what it was doing and its RAM is gone; after the off time the flash powers up keeping
   * what the mode says survived, and the module boots on it and recovers.
   */
  #powerLost(): void {
    const gate = this.#flashGate;
    if (!gate || gate.dead) return;
    gate.dead = true;
    this.#powerLosses++;
    this.#generation++;
    this.#emit((e) => e.powerOff?.({ kind: "loss", mode: this.#powerLossMode, step: this.#flashFs!.steps }));
    const dead = this.#module;
    const restore = (async () => {
      await sleep(this.clock, this.#powerOffMs);
      this.#flashFs!.powerUp(this.#powerLossMode);
      await dead.close().catch(() => undefined);
      await this.#boot();
    })();
    this.#restoring = restore;
    void restore.then(
      () => {
        if (this.#restoring === restore) this.#restoring = undefined;
        this.#emit((e) => e.boot?.(this.#module));
      },
      (error: unknown) => {
        if (this.#restoring === restore) this.#restoring = undefined;
        this.log.error("the module did not boot after a power loss", { error: String(error) });
      },
    );
  }

  #emit(call: (events: SimulatedModuleEvents) => void): void {
    for (const events of [...this.#events]) call(events);
  }
}

/**
 * The images' flash (the journal's own) with the power watched: an image write that fails because
 * the power went takes the module down at once, as a failing journal commit does.
 */
function watchPower(fs: FlashFs, check: () => void): FlashFs {
  const watched = <T>(operation: Promise<T>): Promise<T> =>
    operation.catch((error: unknown) => {
      check();
      throw error;
    });
  const file = (f: FlashFile): FlashFile => ({
    get size() {
      return f.size;
    },
    get writesAreDurable() {
      return f.writesAreDurable;
    },
    append: (bytes) => watched(f.append(bytes)),
    truncate: (size) => watched(f.truncate(size)),
    sync: () => watched(f.sync()),
    close: () => watched(f.close()),
  });
  return {
    list: () => watched(fs.list()),
    read: (name) => watched(fs.read(name)),
    readRange: (name, offset, length) => watched(fs.readRange(name, offset, length)),
    size: (name) => watched(fs.size(name)),
    open: async (name, mode, options) => file(await watched(fs.open(name, mode, options))),
    rename: (from, to) => watched(fs.rename(from, to)),
    remove: (name) => watched(fs.remove(name)),
    syncDir: () => watched(fs.syncDir()),
  };
}
