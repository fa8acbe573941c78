import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../core/Clock.js";
import type { LineHandler } from "../firmware/host/SerialSession.js";
import { Module } from "../firmware/Module.js";
import { MemoryLog, type ModuleLog } from "../firmware/ModuleLog.js";
import { SimPowerSource } from "../firmware/PowerSource.js";
import { SeededRandom } from "../core/SeededRandom.js";
import type { KvStore } from "../firmware/storage/KvStore.js";
import { FlashKvStore, type FlashKvStoreOptions } from "../firmware/storage/flash/FlashKvStore.js";
import { PowerLossFlashFs, type PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { sleep } from "./host/sleep.js";
import type { VariantName } from "../firmware/Variant.js";
import { LinkCapture } from "../hil/capture/LinkCapture.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { buildBoard, type BoardRig, type BoardRigOptions } from "../boards/buildBoard.js";
import type { BoardDefinition } from "../boards/BoardDefinition.js";
import { boardNamed } from "../boards/boards.js";
import type { AttnPin } from "../firmware/attn/AttnPin.js";
import { I2cHostTransport } from "./host/I2cHostTransport.js";
import type { HostTransport } from "./host/HostTransport.js";
import { NoteCHost, type HostEvent } from "./host/NoteCHost.js";
import { NOTE_C_TIMING, type NoteCTiming } from "./host/NoteCTiming.js";
import { SerialHostTransport } from "./host/SerialHostTransport.js";
import type { LinkImpairmentSpec } from "../hil/impair/Impairments.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import { MemoryLink } from "../hil/links/MemoryLink.js";
import { SerialPortLink } from "../hil/links/SerialPortLink.js";
import { SimUart } from "../hil/links/SimUart.js";
import type { SimUartReceiverOptions, UartOverflow } from "../hil/links/SimUartReceiver.js";
import { SystemClock } from "../runtime/SystemClock.js";
import { HostTraffic, type HostLine } from "./HostTraffic.js";
import { ScenarioHost } from "./ScenarioHost.js";
import { ScenarioI2c, type ScenarioI2cOptions } from "./ScenarioI2c.js";
import { ScenarioRadio } from "./ScenarioRadio.js";
import { ScenarioWorld } from "./ScenarioWorld.js";
import { pacingViolations, WireLines, type PacingRule, type WireLine } from "./SegmentPacing.js";
import { RealTimeDriver, VirtualTimeDriver, type TimeDriver } from "./TimeDriver.js";
import type { JsonObject } from "../core/json.js";

export interface ScenarioSerialOptions {
  /** The link's name in captures and reports (default `serial`). */
  readonly name?: string;
  /** Line rate: bytes in both directions take their wire time on the scenario's clock. */
  readonly baud?: number;
  /** The module's receive buffer (1500 bytes by default); `false` for none. */
  readonly rx?: SimUartReceiverOptions | false;
  /** Impairments on the link (seeded by the scenario's seed). */
  readonly impair?: LinkImpairmentSpec;
  /**
   * A real serial device (`/dev/ttyAMA0@9600`, `/dev/ttyGS0`) with a real host MCU on its other
   * end: the scenario runs on real time, and the host is whatever is wired there.
   */
  readonly device?: string;
}

export interface ScenarioOptions {
  /** Seeds the module's identity and randomness and every impairment (default 1). */
  readonly seed?: number | string;
  readonly variant?: VariantName;
  /** Start with the time known, as after a first sync (default false, as a fresh module). */
  readonly timeKnown?: boolean;
  /** Epoch ms the virtual clock starts at (default 2026-01-01T00:00:00Z). */
  readonly clockStart?: number;
  /** The module's flash (default: memory of `flashCapacity` bytes). */
  readonly store?: KvStore;
  readonly flashCapacity?: number;
  /**
   * The real flash store on a flash that can lose power (`PowerLossFlashFs`): power losses in the
   * middle of a write (`world.powerLossAt`) and the recovery at the next boot are then real.
   */
  readonly flash?: boolean | Omit<FlashKvStoreOptions, "onClose">;
  readonly serial?: ScenarioSerialOptions;
  /** Record every link: `true` in memory (written to a temp file on failure), or a file path. */
  readonly capture?: boolean | string;
  /** Default deadline of expectations, in ms of scenario time (default 10 000). */
  readonly timeoutMs?: number;
  /** The module's log (default: kept in memory, `scenario.log`). */
  readonly log?: ModuleLog;
  /**
   * An I2C link to the module as well (serial is always there): the module's I2C target on the
   * software bus with a hardware profile, and impairments for in-process hosts.
   */
  readonly i2c?: ScenarioI2cOptions;
  /**
   * Run on a board's pins: `virtual` (simulated GPIO and I2C bus, virtual time) or a Pi (`pi3`,
   * `pi4`, `pi5`, `zero2w`: its UART, I2C backend, ATTN and host RESET lines, real time, and the
   * host is the MCU wired to them). `boardOptions` are passed to buildBoard.
   */
  readonly board?: string | BoardDefinition;
  readonly boardOptions?: BoardRigOptions;
}

/** A scenario ended with traffic or events nobody expected, or something still in flight. */
export class ScenarioFailure extends Error {
  override readonly name = "ScenarioFailure";
  constructor(
    readonly problems: readonly string[],
    readonly capturePath: string | undefined,
  ) {
    super(
      `the scenario ended with ${problems.length} unexpected thing(s):\n` +
        problems.map((p) => `  - ${p}`).join("\n") +
        (capturePath ? `\ncapture: ${capturePath}` : ""),
    );
  }
}

const DEFAULT_CLOCK_START = Date.UTC(2026, 0, 1);

/**
 * A hardware-in-the-loop scenario on the module's clock, for vitest: a module (in-process), the
 * serial link to its host (in memory with wire timing, impairments and the finite receive buffer,
 * or a real device), a host (the note-c emulator, or a real MCU), the module's world, a capture
 * of everything, and expectations with deadlines. `finish()` fails if anything the host sent
 * was not expected, or if traffic is still in flight.
 *
 * On virtual time nothing moves unless the test waits through the scenario (`run`, `advance`,
 * the expectations, the host's calls), so await everything through it.
 */
export class Scenario {
  readonly clock: Clock;
  readonly driver: TimeDriver;
  readonly traffic: HostTraffic;
  readonly capture: LinkCapture | undefined;
  readonly world: ScenarioWorld;
  readonly power = new SimPowerSource();
  readonly radio: ScenarioRadio;
  readonly log: ModuleLog;
  readonly seed: number | string;
  /** Overflow episodes of the module's receive buffer: every loss, grouped by episode. */
  readonly overflows: UartOverflow[][] = [];
  readonly #options: ScenarioOptions;
  readonly #store: KvStore | undefined;
  readonly #flashFs: PowerLossFlashFs | undefined;
  /** The flash store of the module now running; `dead` once its power went. */
  #flashGate: { dead: boolean } | undefined;
  #powerLossMode: PowerLossMode = "drop-unsynced";
  #powerOffMs = 0;
  #powerLosses = 0;
  #powerLossWaiters: (() => void)[] = [];
  #restoring: Promise<void> | undefined;
  readonly #serial: ScenarioSerialOptions;
  readonly #linkName: string;
  readonly #timeoutMs: number;
  readonly #wire: WireLines;
  readonly #capturePath: string | undefined;
  readonly #start: number;
  #module!: Module;
  #uart!: SimUart;
  #hostLink: MemoryLink | undefined;
  #moduleLink!: ByteLink;
  #i2c: ScenarioI2c | undefined;
  #rig: BoardRig | undefined;
  readonly #board: BoardDefinition | undefined;
  readonly #attnListeners: ((high: boolean) => void)[] = [];
  #attnLevel = true;
  #attnEdges: { t: number; high: boolean }[] = [];
  #host: ScenarioHost | undefined;
  #generation = 0;
  #boots = 0;
  #overflowsExpected = 0;
  #overflowWaiters: ((o: UartOverflow[]) => void)[] = [];
  #closed = false;

  private constructor(options: ScenarioOptions) {
    this.#options = options;
    this.seed = options.seed ?? 1;
    this.#serial = options.serial ?? {};
    this.#linkName = this.#serial.name ?? "serial";
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    const board = typeof options.board === "string" ? boardNamed(options.board) : options.board;
    if (options.board !== undefined && !board) throw new Error(`unknown board ${String(options.board)}`);
    this.#board = board;
    // A real board, or a real serial device, means real hardware on the other end: real time.
    if (this.#serial.device || (board && board.name !== "virtual")) {
      this.clock = new SystemClock();
      this.driver = new RealTimeDriver(this.clock);
    } else {
      const fake = new FakeClock(options.clockStart ?? DEFAULT_CLOCK_START);
      this.clock = fake;
      this.driver = new VirtualTimeDriver(fake);
    }
    this.#start = this.clock.now();
    if (options.flash && !options.store) {
      this.#flashFs = new PowerLossFlashFs();
      this.#store = undefined;
    } else {
      this.#flashFs = undefined;
      this.#store = options.store ?? new MemoryKvStore({ capacity: options.flashCapacity });
    }
    this.log = options.log ?? new MemoryLog();
    this.traffic = new HostTraffic(this.clock);
    this.radio = new ScenarioRadio(this.clock);
    this.#wire = new WireLines(this.#linkName);
    this.#capturePath = typeof options.capture === "string" ? options.capture : undefined;
    this.capture = options.capture
      ? new LinkCapture(this.clock, {
          module: {
            seed: this.seed,
            variant: options.variant ?? "cell",
            timeKnown: options.timeKnown ?? false,
            ...(options.flash && !options.store ? { flash: options.flash } : {}),
          },
          links: {
            [this.#linkName]: {
              kind: "serial",
              ...(this.#serial.baud ? { baud: this.#serial.baud } : {}),
              rx: this.#serial.rx ?? {},
              ...(this.#serial.impair ? { impair: this.#serial.impair } : {}),
              ...(this.#serial.device ? { device: this.#serial.device } : {}),
            },
            ...(options.i2c
              ? {
                  i2c: {
                    kind: "i2c",
                    profile:
                      typeof options.i2c.profile === "object"
                        ? options.i2c.profile.name
                        : (options.i2c.profile ?? "ideal"),
                    address: options.i2c.address ?? 0x17,
                    ...(options.i2c.impair ? { impair: options.i2c.impair } : {}),
                  },
                }
              : {}),
          },
          ...(board ? { board: board.name } : {}),
        })
      : undefined;
    if (this.#capturePath) this.capture!.streamTo(this.#capturePath);
    const moduleNow = () => this.#module;
    this.world = new ScenarioWorld({
      get module() {
        return moduleNow();
      },
      power: this.power,
      radio: this.radio,
      traffic: this.traffic,
      capture: this.capture,
      powerCycle: () => this.#powerCycle(),
      cutPower: (mode, offMs) => this.cutPower(mode, offMs),
      armPowerLoss: (step, mode, offMs) => this.armPowerLoss(step, mode, offMs),
    });
  }

  /** Builds the board (if any), boots the module, and connects its links. */
  static async start(options: ScenarioOptions = {}): Promise<Scenario> {
    const scenario = new Scenario(options);
    try {
      await scenario.#connect();
    } catch (error) {
      await scenario.close().catch(() => undefined);
      throw error;
    }
    return scenario;
  }

  async #connect(): Promise<void> {
    const options = this.#options;
    if (this.#board) {
      this.#rig = await buildBoard(this.#board, {
        ...options.boardOptions,
        clock: this.clock,
        ...(options.i2c?.profile !== undefined && this.#board.name === "virtual"
          ? { simProfile: options.i2c.profile }
          : {}),
      });
    }
    await this.#boot();
    const device =
      this.#serial.device ??
      (this.#rig?.serial ? `${this.#rig.serial.path}@${this.#rig.serial.baudRate}` : undefined);
    if (device) {
      this.#moduleLink = await SerialPortLink.open(device);
    } else {
      const [host, module] = MemoryLink.pair();
      this.#hostLink = host;
      this.#moduleLink = module;
    }
    this.#attachUart();
    if (options.i2c || this.#rig?.i2c) {
      this.#i2c = await ScenarioI2c.attach(this.traffic.wrap(this.#moduleHandler(), "i2c"), {
        clock: this.clock,
        options: options.i2c ?? {},
        ...(this.#rig?.i2c ? { backend: this.#rig.i2c } : {}),
        capture: this.capture,
        seed: this.seed,
      });
    }
  }

  /** The module as it is now (a power cycle replaces it). */
  get module(): Module {
    return this.#module;
  }

  /** The module's serial port. */
  get uart(): SimUart {
    return this.#uart;
  }

  /** The host's end of the in-memory serial link (absent on a real device). */
  get hostLink(): ByteLink | undefined {
    return this.#hostLink;
  }

  /** The module's I2C link, when the scenario has one. */
  get i2c(): ScenarioI2c | undefined {
    return this.#i2c;
  }

  /** The board's links and pins, when the scenario runs on a board. */
  get rig(): BoardRig | undefined {
    return this.#rig;
  }

  /** The level of the module's ATTN output now (HIGH until something arms it). */
  get attn(): boolean {
    return this.#attnLevel;
  }

  /** Every ATTN change: ms since the start, and the new level. */
  get attnEdges(): readonly { t: number; high: boolean }[] {
    return this.#attnEdges;
  }

  /** Waits for ATTN to be at `high` (now or later). */
  expectAttn(high: boolean, options: { timeout?: number } = {}): Promise<void> {
    if (this.#attnLevel === high) return Promise.resolve();
    return this.run(
      new Promise<void>((resolve) => {
        const listener = (level: boolean) => {
          if (level !== high) return;
          this.#attnListeners.splice(this.#attnListeners.indexOf(listener), 1);
          resolve();
        };
        this.#attnListeners.push(listener);
      }),
      { timeout: options.timeout, what: `ATTN to go ${high ? "HIGH" : "LOW"}` },
    );
  }

  /** The attached note-c host emulator, if any. */
  get host(): ScenarioHost | undefined {
    return this.#host;
  }

  /** Lines as they arrived on the wire, with their bursts (see `expectPacedSegments`). */
  get wireLines(): readonly WireLine[] {
    return this.#wire.lines;
  }

  /** Milliseconds of scenario time since it started. */
  elapsed(): number {
    return this.clock.now() - this.#start;
  }

  async #boot(): Promise<void> {
    this.#module = await Module.boot({
      clock: this.clock,
      // Each boot draws fresh randomness, repeatably; the identity stays in flash.
      random: new SeededRandom(this.#boots === 0 ? this.seed : `${this.seed}/boot${this.#boots}`),
      store: this.#store ?? this.#flashStore(),
      variant: this.#options.variant ?? "cell",
      power: this.power,
      log: this.log,
      timeKnown: this.#options.timeKnown ?? false,
      attnPin: this.#attnPin(),
    });
    this.#boots++;
  }

  /** The module's ATTN output: the board's GPIO line if any, watched by the scenario. */
  #attnPin(): AttnPin {
    const pin = this.#rig?.attnPin;
    return {
      write: (high) => {
        pin?.write(high);
        if (high === this.#attnLevel) return;
        this.#attnLevel = high;
        this.#attnEdges.push({ t: this.elapsed(), high });
        this.capture?.record("attn", "m2h", "event", undefined, { attn: high ? "high" : "low" });
        for (const l of [...this.#attnListeners]) l(high);
      },
    };
  }

  /** The current module as a line handler; a module that lost power never answers. */
  #moduleHandler(): LineHandler {
    const generation = this.#generation;
    return {
      handleLine: async (line) => {
        const reply = await this.#module.handleLine(line);
        if (this.#flashFs && !this.#flashFs.powered) this.#powerLost();
        return generation === this.#generation ? reply : undefined;
      },
      handleLineReply: async (line) => {
        const reply = await this.#module.handleLineReply(line);
        if (this.#flashFs && !this.#flashFs.powered) this.#powerLost();
        return generation === this.#generation ? reply : undefined;
      },
      handleOverflow: async (length) => {
        const reply = await this.#module.handleOverflow(length);
        return generation === this.#generation ? reply : undefined;
      },
    };
  }

  #attachUart(): void {
    const module = this.#moduleHandler();
    this.#uart = SimUart.attach(this.traffic.wrap(module, this.#linkName), this.#moduleLink, {
      clock: this.clock,
      baud: this.#serial.baud,
      rx: this.#serial.rx,
      impair: this.#serial.impair,
      seed: this.seed,
      capture: this.capture,
      name: this.#linkName,
      onWire: (bytes) => this.#wire.push(this.elapsed(), bytes),
    });
    let episodes = 0;
    this.#uart.receiver?.onOverflow((overflow) => {
      this.log.warn("serial receive buffer overflow", {
        lost: overflow.bytes.length,
        position: overflow.position,
        episode: overflow.episode,
      });
      if (overflow.episode === episodes) {
        this.overflows.at(-1)!.push(overflow);
        return;
      }
      episodes = overflow.episode;
      const episode = [overflow];
      this.overflows.push(episode);
      const waiter = this.#overflowWaiters.shift();
      if (waiter) {
        this.#overflowsExpected++;
        waiter(episode);
      }
    });
  }

  async #powerCycle(): Promise<void> {
    this.#generation++;
    this.#uart.detach();
    this.capture?.record(`${this.#linkName}.module`, "h2m", "event", undefined, { event: "power-off" });
    // A clean power cycle: what was committed is on the flash; the module lets go of it.
    if (this.#flashFs) await this.#module.close();
    await this.#boot();
    this.#attachUart();
    this.#i2c?.replaceTarget(this.traffic.wrap(this.#moduleHandler(), "i2c"));
  }

  /** A FlashKvStore on the power-loss flash for one boot, watching for the power going. */
  #flashStore(): KvStore {
    const fs = this.#flashFs!;
    const options = typeof this.#options.flash === "object" ? this.#options.flash : {};
    const store = new FlashKvStore(fs, options);
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
          if (!fs.powered) this.#powerLost();
        }
      },
    };
  }

  /** The flash, when the scenario runs the module on the power-loss flash (`flash: true`). */
  get flash(): PowerLossFlashFs | undefined {
    return this.#flashFs;
  }

  /** How many times the module lost power (`world.powerLoss`, `world.powerLossAt`). */
  get powerLosses(): number {
    return this.#powerLosses;
  }

  /** @internal world: cuts the power now and waits for the module to be back. */
  async cutPower(mode: PowerLossMode, offMs: number): Promise<void> {
    if (!this.#flashFs)
      throw new Error("a power loss needs the power-loss flash: Scenario.start({ flash: true })");
    this.#powerLossMode = mode;
    this.#powerOffMs = offMs;
    this.#flashFs.powerFail();
    this.#powerLost();
    await this.#restoring;
  }

  /** @internal world: the power goes at the `step`-th flash write from now. */
  armPowerLoss(step: number, mode: PowerLossMode, offMs: number): void {
    if (!this.#flashFs)
      throw new Error("a power loss needs the power-loss flash: Scenario.start({ flash: true })");
    if (!Number.isSafeInteger(step) || step < 1)
      throw new Error(`powerLossAt step must be >= 1, got ${step}`);
    this.#powerLossMode = mode;
    this.#powerOffMs = offMs;
    this.#flashFs.failAtStep(this.#flashFs.steps + step);
  }

  /** Waits until the module lost power and is running again (after `world.powerLossAt`). */
  expectPowerLoss(options: { timeout?: number } = {}): Promise<void> {
    const seen = this.#powerLosses;
    return this.run(
      new Promise<void>((resolve) => {
        const check = () =>
          this.#powerLosses > seen && !this.#restoring ? resolve() : this.#powerLossWaiters.push(check);
        check();
      }),
      { timeout: options.timeout, what: "the module to lose power and boot again" },
    );
  }

  /**
   * The power went (between requests, or in the middle of a flash write): the module never
   * answers what it was doing, its UART and RAM are gone; after the off time the flash powers up
   * keeping what the mode says survived, and the module boots on it and recovers.
   */
  #powerLost(): void {
    const gate = this.#flashGate;
    if (!gate || gate.dead) return;
    gate.dead = true;
    this.#powerLosses++;
    this.#generation++;
    this.#uart.detach();
    this.capture?.record(`${this.#linkName}.module`, "h2m", "event", undefined, {
      event: "power-loss",
      mode: this.#powerLossMode,
      step: this.#flashFs!.steps,
    });
    const dead = this.#module;
    const restore = (async () => {
      await sleep(this.clock, this.#powerOffMs);
      this.#flashFs!.powerUp(this.#powerLossMode);
      await dead.close().catch(() => undefined);
      await this.#boot();
      this.#attachUart();
      this.#i2c?.replaceTarget(this.traffic.wrap(this.#moduleHandler(), "i2c"));
      this.capture?.record(`${this.#linkName}.module`, "h2m", "event", undefined, { event: "power-on" });
    })();
    this.#restoring = restore;
    void restore.finally(() => {
      if (this.#restoring === restore) this.#restoring = undefined;
      for (const waiter of this.#powerLossWaiters.splice(0)) waiter();
    });
  }

  /**
   * Attaches the note-c host emulator, on the serial link (default) or the I2C bus, in-process.
   * With a baud rate, its serial writes block like an MCU's UART driver with a 64-byte transmit
   * buffer. On a real board the host is the MCU wired to it: there is nothing to attach.
   */
  attachNoteC(
    options: {
      transport?: "serial" | "i2c";
      timing?: Partial<NoteCTiming>;
      crc?: boolean;
      txBufferBytes?: number;
    } = {},
  ): ScenarioHost {
    if (this.#host) throw new Error("attachNoteC: a host is already attached");
    const timing: NoteCTiming = { ...NOTE_C_TIMING, ...options.timing };
    const kind = options.transport ?? "serial";
    let transport: HostTransport;
    let reattach: ((link: ByteLink) => void) | undefined;
    if (kind === "i2c") {
      const controller = this.#i2c?.controller;
      if (!controller) {
        throw new Error(
          this.#i2c
            ? "attachNoteC: the I2C bus is a rig's: its host is the MCU wired to it"
            : "attachNoteC: this scenario has no I2C link (Scenario.start({ i2c: {} }))",
        );
      }
      transport = new I2cHostTransport(controller, this.clock, timing, { address: this.#i2c!.address });
    } else {
      if (!this.#hostLink)
        throw new Error("attachNoteC: this scenario's host is a real device on the serial port");
      const serial = new SerialHostTransport(this.#hostLink, this.clock, timing, {
        txBaud: this.#serial.baud,
        txBufferBytes: options.txBufferBytes,
      });
      transport = serial;
      reattach = (link) => serial.attach(link);
    }
    const link = kind === "i2c" ? "i2c.host" : `${this.#linkName}.host`;
    const events: HostEvent[] = [];
    const noteC = new NoteCHost({
      clock: this.clock,
      transport,
      timing,
      crc: options.crc,
      onEvent: (event) => {
        events.push(event);
        if (event.event !== "send" && event.event !== "reply") {
          this.capture?.record(link, "h2m", "event", undefined, {
            host: event.event,
            ...(event.detail !== undefined ? { detail: event.detail } : {}),
          });
        }
      },
    });
    const host = new ScenarioHost(this.driver, noteC, events, reattach);
    this.#host = host;
    return host;
  }

  /** Runs the scenario until `promise` settles; fails after `timeout` ms of scenario time. */
  run<T>(promise: Promise<T>, options: { timeout?: number; what?: string } = {}): Promise<T> {
    return this.driver.run(
      promise,
      options.timeout ?? this.#timeoutMs,
      options.what ?? "a promise to settle",
    );
  }

  /** Lets `ms` of scenario time pass (hosts, module, pacers and timers all run). */
  advance(ms: number): Promise<void> {
    return this.driver.sleep(ms);
  }

  /**
   * Waits for the host to send a request or command matching `predicate` (the object without its
   * crc field), consuming it. Earlier unmatched lines stay unconsumed (and fail `finish`).
   */
  async expectHostRequest(
    predicate: (request: JsonObject, line: HostLine) => boolean,
    options: { timeout?: number; what?: string } = {},
  ): Promise<HostLine> {
    const wait = this.traffic.waitFor(predicate);
    try {
      return await this.run(wait.line, {
        timeout: options.timeout,
        what: options.what ?? `a host request matching ${predicate.toString().slice(0, 80)}`,
      });
    } catch (error) {
      wait.cancel();
      throw error;
    }
  }

  /** Waits until the module has answered `line`; returns its reply as an object. */
  async replyTo(line: HostLine, options: { timeout?: number } = {}): Promise<JsonObject | undefined> {
    await this.run(line.answered, {
      timeout: options.timeout,
      what: `the module's reply to line #${line.index}`,
    });
    return line.replyJson;
  }

  /** Marks host lines matching `predicate` (now and later) as expected. */
  ignore(predicate: (line: HostLine) => boolean): void {
    this.traffic.ignore(predicate);
  }

  /**
   * Waits for an overflow episode of the module's receive buffer (or takes one that already
   * happened), consuming it: the losses of that episode, in order.
   */
  expectOverflow(options: { timeout?: number } = {}): Promise<UartOverflow[]> {
    if (this.#overflowsExpected < this.overflows.length) {
      return Promise.resolve(this.overflows[this.#overflowsExpected++]!);
    }
    return this.run(new Promise<UartOverflow[]>((resolve) => this.#overflowWaiters.push(resolve)), {
      timeout: options.timeout,
      what: "the module's receive buffer to overflow",
    });
  }

  /**
   * Asserts that every line the host sent so far was paced: bursts of at most 250 bytes with
   * pauses between them (see PacingRule). Returns the lines checked.
   */
  expectPacedSegments(rule: PacingRule = {}): readonly WireLine[] {
    const violations = pacingViolations(this.#wire.lines, rule);
    if (violations.length > 0) {
      throw new Error(
        `the host did not pace its segments:\n` +
          violations.map((v) => `  - ${v.problem} in a ${v.line.bytes}-byte line`).join("\n"),
      );
    }
    return this.#wire.lines;
  }

  /** Cuts the link (bytes both ways are lost, nobody is told), for `forMs` or until reconnect. */
  disconnect(forMs?: number): void {
    this.#uart.outage.disconnect();
    if (forMs !== undefined) this.clock.setTimer(() => this.#uart.outage.reconnect(), forMs);
  }

  reconnect(): void {
    this.#uart.outage.reconnect();
  }

  /** Holds the link's bytes (one way or both) for `ms`, then lets them through in order. */
  stall(ms: number, dir: "h2m" | "m2h" | "both" = "both"): void {
    this.#uart.stall(ms, dir);
  }

  /**
   * Unplugs the cable (in-memory link): both ends see their port close, like a USB device that
   * disappears. `replug()` connects a new cable; an attached emulator reopens its port.
   */
  async unplug(): Promise<void> {
    if (!this.#hostLink) throw new Error("unplug: a real device cannot be unplugged by the harness");
    this.capture?.record(`${this.#linkName}.host`, "h2m", "event", undefined, { event: "unplug" });
    await this.#hostLink.close();
  }

  replug(): void {
    if (!this.#hostLink) throw new Error("replug: a real device cannot be replugged by the harness");
    if (!this.#hostLink.closed) throw new Error("replug: the cable is still plugged in");
    const [host, module] = MemoryLink.pair();
    this.#hostLink = host;
    this.#moduleLink = module;
    this.#generation++;
    this.#attachUart();
    this.capture?.record(`${this.#linkName}.host`, "h2m", "event", undefined, { event: "replug" });
    this.#host?.reattach(host);
  }

  /**
   * Restarts the host MCU: on a board, pulses its RESET line (active LOW, `ms` long); an attached
   * emulator restarts with it, as if wired to that line.
   */
  async resetHost(ms = 10): Promise<void> {
    if (!this.#host && !this.#rig)
      throw new Error("resetHost: no host emulator attached and no board with a RESET line");
    this.capture?.record("reset", "h2m", "event", undefined, { event: "host-reset" });
    this.#host?.noteC.restart();
    if (this.#rig)
      await this.run(this.#rig.hostReset.pulse(ms), { timeout: ms + 1000, what: "the RESET pulse" });
  }

  /**
   * Ends the scenario: lets the module answer what it already received, then fails (listing
   * everything) if a host line was not expected, an overflow was not expected, bytes are still
   * in flight, or the host left module output unread. Closes everything either way.
   */
  async finish(): Promise<void> {
    const problems: string[] = [];
    try {
      await this.run(this.#uart.session.idle(), {
        timeout: 60_000,
        what: "the module to answer what it has",
      });
    } catch (error) {
      problems.push((error as Error).message);
    }
    for (const line of this.traffic.describeUnconsumed()) problems.push(`host line nobody expected: ${line}`);
    for (const episode of this.overflows.slice(this.#overflowsExpected)) {
      const lost = episode.reduce((n, o) => n + o.bytes.length, 0);
      problems.push(
        `receive buffer overflow nobody expected: ${lost} bytes lost from byte ${episode[0]!.position}`,
      );
    }
    if (this.#i2c) {
      try {
        await this.run(this.#i2c.idle(), {
          timeout: 60_000,
          what: "the module to answer what it has on I2C",
        });
      } catch (error) {
        problems.push((error as Error).message);
      }
      if (this.#i2c.unread > 0)
        problems.push(`${this.#i2c.unread} bytes of module output on I2C that the host never read`);
    }
    if (this.#restoring) problems.push("the module is still without power");
    if (this.#uart.inFlight > 0) problems.push(`still in flight: ${this.#uart.describeInFlight()}`);
    if (this.#host && this.#host.unread > 0) {
      problems.push(`${this.#host.unread} bytes from the module that the host never read`);
    }
    let capturePath = this.#capturePath;
    if (problems.length > 0 && this.capture && !capturePath) {
      capturePath = join(
        tmpdir(),
        `cardsim-scenario-${String(this.seed)}-${process.pid}-${Date.now()}.jsonl`,
      );
      writeFileSync(capturePath, this.capture.toJsonl());
    }
    await this.close();
    if (problems.length > 0) throw new ScenarioFailure(problems, capturePath);
  }

  /** Closes the links, the module and the capture file, without checks (test cleanup). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.radio.dispose();
    await this.#restoring?.catch(() => undefined);
    // Parts may be missing when start failed halfway.
    if (this.#uart) await this.#uart.close();
    await this.#hostLink?.close();
    // The board closes the I2C backend it made; a software bus of our own is closed here.
    if (this.#i2c && !this.#rig) await this.#i2c.close();
    await this.#rig?.close();
    if (this.#module) await this.#module.close();
    await this.capture?.close();
  }
}
