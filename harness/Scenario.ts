import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../core/Clock.js";
import type { JsonObject } from "../core/json.js";
import type { BoardDefinition } from "../boards/BoardDefinition.js";
import { boardNamed } from "../boards/boards.js";
import type { BoardRig } from "../boards/buildBoard.js";
import type { Module } from "../firmware/Module.js";
import { MemoryLog, type ModuleLog } from "../firmware/ModuleLog.js";
import { SimRadioConditions } from "../firmware/radio/RadioConditions.js";
import type { PowerLossFlashFs, PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import type { SimUart } from "../hil/links/SimUart.js";
import type { UartOverflow } from "../hil/links/SimUartReceiver.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { InProcessHub } from "../runtime/InProcessHub.js";
import { assembleModule, type ModuleRig } from "../runtime/assembleModule.js";
import type { SimulatedModule } from "../runtime/SimulatedModule.js";
import { SystemClock } from "../runtime/SystemClock.js";
import { HostTraffic, type HostLine, type HostLineMatch } from "./HostTraffic.js";
import { scenarioCapture } from "./scenarioCapture.js";
import { scenarioProblems } from "./scenarioProblems.js";
import { scenarioRigOptions } from "./scenarioRigOptions.js";
import { ScenarioAttn } from "./ScenarioAttn.js";
import type { ScenarioHost } from "./ScenarioHost.js";
import { attachNoteCHost, type NoteCHostOptions } from "./ScenarioHost.js";
import { ScenarioI2c } from "./ScenarioI2c.js";
import { ScenarioPower, ScenarioSupply } from "./ScenarioPower.js";
import type { EnergyReport } from "../firmware/power/EnergyMeter.js";
import { ScenarioRadio } from "./ScenarioRadio.js";
import { ScenarioSerial } from "./ScenarioSerial.js";
import { ScenarioWorld } from "./ScenarioWorld.js";
import { pacingViolations, type PacingRule, type WireLine } from "./SegmentPacing.js";
import { SyncTimeline } from "./SyncTimeline.js";
import { RealTimeDriver, VirtualTimeDriver, type TimeDriver } from "./TimeDriver.js";

export type { ScenarioSerialOptions } from "./ScenarioSerial.js";
export type { ScenarioOptions } from "./ScenarioOptions.js";
import type { ScenarioOptions } from "./ScenarioOptions.js";

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
 * A hardware-in-the-loop scenario on the module's clock, for vitest: a simulated module
 * (runtime/SimulatedModule), its serial link to the host (ScenarioSerial: in memory with wire
 * timing, impairments and the finite receive buffer, or a real device), optionally I2C
 * (ScenarioI2c), a host (the note-c emulator, or a real MCU), the module's world (ScenarioWorld),
 * its power (ScenarioPower), a capture of everything, and expectations with deadlines.
 * `finish()` fails if anything the host sent was not expected, or if traffic is still in flight.
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
  /** The module's supply: source, voltage, discharge curves. */
  readonly power: ScenarioSupply;
  readonly radio: ScenarioRadio;
  readonly log: ModuleLog;
  readonly seed: number | string;
  readonly serial: ScenarioSerial;
  /** Every sync session of the module (across power cycles), and entries others record. */
  readonly timeline = new SyncTimeline();
  readonly #options: ScenarioOptions;
  readonly #timeoutMs: number;
  readonly #start: number;
  readonly #board: BoardDefinition | undefined;
  readonly #attn: ScenarioAttn;
  #sim!: SimulatedModule;
  #assembled: ModuleRig | undefined;
  #hub: InProcessHub | undefined;
  #power!: ScenarioPower;
  #i2c: ScenarioI2c | undefined;
  #rig: BoardRig | undefined;
  #host: ScenarioHost | undefined;
  #closed = false;

  private constructor(options: ScenarioOptions) {
    this.#options = options;
    this.seed = options.seed ?? 1;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    const board = typeof options.board === "string" ? boardNamed(options.board) : options.board;
    if (options.board !== undefined && !board) throw new Error(`unknown board ${String(options.board)}`);
    this.#board = board;
    // A real board, or a real serial device, means real hardware on the other end: real time.
    if (options.serial?.device || (board && board.name !== "virtual")) {
      this.clock = new SystemClock();
      this.driver = new RealTimeDriver(this.clock);
    } else {
      const fake = new FakeClock(options.clockStart ?? DEFAULT_CLOCK_START);
      this.clock = fake;
      this.driver = new VirtualTimeDriver(fake);
    }
    this.#start = this.clock.now();
    this.power = new ScenarioSupply(this.clock);
    this.log = options.log ?? new MemoryLog();
    this.traffic = new HostTraffic(this.clock);
    this.radio = new ScenarioRadio(new SimRadioConditions(this.clock));
    const linkName = options.serial?.name ?? "serial";
    this.capture = scenarioCapture(options, this.clock, this.seed, linkName, board?.name);
    this.serial = new ScenarioSerial({
      serial: options.serial ?? {},
      clock: this.clock,
      seed: this.seed,
      capture: this.capture,
      log: this.log,
      elapsed: () => this.elapsed(),
    });
    this.#attn = new ScenarioAttn(() => this.elapsed(), this.capture);
    const modelOf = () => this.#sim.world;
    this.world = new ScenarioWorld({
      module: () => this.#sim.module,
      get model() {
        return modelOf();
      },
      power: this.power,
      radio: this.radio,
      traffic: this.traffic,
      capture: this.capture,
      hub: () => this.#hub ?? (this.#options.hub !== undefined ? "elsewhere" : undefined),
      powerCycle: () => this.#power.cycle(),
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
    if (options.hub === "in-process") {
      const hub = await InProcessHub.start({ clock: this.clock, seed: `${String(this.seed)}/hub` });
      this.#hub = hub;
      // Real I/O of the hub (a real client on a listener, a route delivery, a proxied web
      // request) happens at the virtual moment it was asked for.
      if (this.driver instanceof VirtualTimeDriver) this.driver.holdWhile(() => hub.busy);
    }
    const hub = this.#hub ? this.#hub.connection() : options.hub === "in-process" ? undefined : options.hub;
    // The module and its board as every module is built (runtime/assembleModule); the host's
    // links are the scenario's own (serial, I2C), attached below.
    this.#assembled = await assembleModule(
      scenarioRigOptions(options, {
        clock: this.clock,
        seed: this.seed,
        board: this.#board,
        supply: this.power,
        radio: this.radio.conditions,
        log: this.log,
        attnPin: (boardPin) => this.#attn.pin(boardPin),
        hub: hub ? (typeof hub === "function" ? hub(this.clock) : hub) : undefined,
      }),
    );
    this.#rig = this.#assembled.board;
    this.#sim = this.#assembled.simulated;
    this.timeline.follow(this.#sim.module);
    this.#sim.on({ boot: (module) => this.timeline.follow(module) });
    this.#power = new ScenarioPower(this.#sim, {
      capture: this.capture,
      linkName: this.serial.name,
      down: () => this.serial.detach(),
      up: () => {
        this.serial.attach();
        this.#i2c?.replaceTarget(this.#moduleHandler("i2c"));
      },
    });
    const device =
      options.serial?.device ??
      (this.#rig?.serial ? `${this.#rig.serial.path}@${this.#rig.serial.baudRate}` : undefined);
    await this.serial.connect(device, () => this.#moduleHandler(this.serial.name));
    if (options.i2c || this.#rig?.i2c) {
      this.#i2c = await ScenarioI2c.attach(this.#moduleHandler("i2c"), {
        clock: this.clock,
        options: options.i2c ?? {},
        ...(this.#rig?.i2c ? { backend: this.#rig.i2c } : {}),
        capture: this.capture,
        seed: this.seed,
      });
    }
  }

  /** The module as it is now, for a link: host traffic is recorded, a dead module never answers. */
  #moduleHandler(link: string) {
    return this.traffic.wrap(this.#sim.lineHandler(), link);
  }

  /** The module as it is now (a power cycle replaces it). */
  get module(): Module {
    return this.#sim.module;
  }

  /** The scenario's own hub (`hub: "in-process"`), on the scenario's clock. */
  get hub(): InProcessHub | undefined {
    return this.#hub;
  }

  /** The simulated module: its flash, power, radio and lifecycle. */
  get simulated(): SimulatedModule {
    return this.#sim;
  }

  /** The energy the module used so far (the energy model's totals; they survive restarts). */
  energy(): EnergyReport {
    return this.#sim.module.energy.report();
  }

  /** The module's serial port. */
  get uart(): SimUart {
    return this.serial.uart;
  }

  /** The host's end of the in-memory serial link (absent on a real device). */
  get hostLink(): ByteLink | undefined {
    return this.serial.hostLink;
  }

  /** The module's I2C link, when the scenario has one. */
  get i2c(): ScenarioI2c | undefined {
    return this.#i2c;
  }

  /** The board's links and pins, when the scenario runs on a board. */
  get rig(): BoardRig | undefined {
    return this.#rig;
  }

  /** Overflow episodes of the module's receive buffer: every loss, grouped by episode. */
  get overflows(): readonly UartOverflow[][] {
    return this.serial.overflows;
  }

  /** The level of the module's ATTN output now (HIGH until something arms it). */
  get attn(): boolean {
    return this.#attn.level;
  }

  /** Every ATTN change: ms since the start, and the new level. */
  get attnEdges(): readonly { t: number; high: boolean }[] {
    return this.#attn.edges;
  }

  /** Waits for ATTN to be at `high` (now or later). */
  expectAttn(high: boolean, options: { timeout?: number } = {}): Promise<void> {
    return this.run(this.#attn.when(high), {
      timeout: options.timeout,
      what: `ATTN to go ${high ? "HIGH" : "LOW"}`,
    });
  }

  /** The attached note-c host emulator, if any. */
  get host(): ScenarioHost | undefined {
    return this.#host;
  }

  /** Lines as they arrived on the wire, with their bursts (see `expectPacedSegments`). */
  get wireLines(): readonly WireLine[] {
    return this.serial.wireLines;
  }

  /** Milliseconds of scenario time since it started. */
  elapsed(): number {
    return this.clock.now() - this.#start;
  }

  /** The flash, when the scenario runs the module on the power-loss flash (`flash: true`). */
  get flash(): PowerLossFlashFs | undefined {
    return this.#sim.flash;
  }

  /** How many times the module lost power (`world.powerLoss`, `world.powerLossAt`). */
  get powerLosses(): number {
    return this.#power.losses;
  }

  /** @internal world: cuts the power now and waits for the module to be back. */
  cutPower(mode: PowerLossMode, offMs: number): Promise<void> {
    return this.#power.cut(mode, offMs);
  }

  /** @internal world: the power goes at the `step`-th flash write from now. */
  armPowerLoss(step: number, mode: PowerLossMode, offMs: number): void {
    this.#power.arm(step, mode, offMs);
  }

  /** Waits until the module lost power and is running again (after `world.powerLossAt`). */
  expectPowerLoss(options: { timeout?: number } = {}): Promise<void> {
    return this.run(this.#power.backAfter(this.#power.losses), {
      timeout: options.timeout,
      what: "the module to lose power and boot again",
    });
  }

  /**
   * Attaches the note-c host emulator, on the serial link (default) or the I2C bus, in-process.
   * With a baud rate, its serial writes block like an MCU's UART driver with a 64-byte transmit
   * buffer. On a real board the host is the MCU wired to it: there is nothing to attach.
   */
  attachNoteC(options: NoteCHostOptions = {}): ScenarioHost {
    if (this.#host) throw new Error("attachNoteC: a host is already attached");
    this.#host = attachNoteCHost(this, options);
    return this.#host;
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
   * Waits for the host to send a request or command matching `match` (a function of the request,
   * without its crc field, and the line; or an object of fields the request must have), consuming
   * it. Earlier unmatched lines stay unconsumed (and fail `finish`, unless the emulated host sent
   * them for the test).
   */
  async expectHostRequest(
    match: HostLineMatch,
    options: { timeout?: number; what?: string } = {},
  ): Promise<HostLine> {
    const wait = this.traffic.waitFor(match);
    try {
      const shown = typeof match === "function" ? match.toString() : JSON.stringify(match);
      return await this.run(wait.line, {
        timeout: options.timeout,
        what: options.what ?? `a host request matching ${shown.slice(0, 80)}`,
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

  /**
   * Marks host lines matching `match` (now and later) as expected: the same shape as
   * `expectHostRequest`'s, over lines of every kind (`request` is `{}` for a line that is not a
   * request or command: `(_, line) => line.kind === "invalid"`).
   */
  ignore(match: HostLineMatch): void {
    this.traffic.ignore(match);
  }

  /**
   * Waits for an overflow episode of the module's receive buffer (or takes one that already
   * happened), consuming it: the losses of that episode, in order.
   */
  async expectOverflow(options: { timeout?: number } = {}): Promise<UartOverflow[]> {
    const next = this.serial.nextOverflow();
    if (Array.isArray(next)) return next;
    return this.run(next, { timeout: options.timeout, what: "the module's receive buffer to overflow" });
  }

  /**
   * Asserts that every line the host sent so far was paced: bursts of at most 250 bytes with
   * pauses between them (see PacingRule). Returns the lines checked.
   */
  expectPacedSegments(rule: PacingRule = {}): readonly WireLine[] {
    const lines = this.serial.wireLines;
    const violations = pacingViolations(lines, rule);
    if (violations.length > 0) {
      throw new Error(
        `the host did not pace its segments:\n` +
          violations.map((v) => `  - ${v.problem} in a ${v.line.bytes}-byte line`).join("\n"),
      );
    }
    return lines;
  }

  /** Cuts the link (bytes both ways are lost, nobody is told), for `forMs` or until reconnect. */
  disconnect(forMs?: number): void {
    this.serial.disconnect(forMs);
  }

  reconnect(): void {
    this.serial.reconnect();
  }

  /** Holds the link's bytes (one way or both) for `ms`, then lets them through in order. */
  stall(ms: number, dir: "h2m" | "m2h" | "both" = "both"): void {
    this.serial.stall(ms, dir);
  }

  /**
   * Unplugs the cable (in-memory link): both ends see their port close, like a USB device that
   * disappears. `replug()` connects a new cable; an attached emulator reopens its port.
   */
  unplug(): Promise<void> {
    return this.serial.unplug();
  }

  replug(): void {
    const host = this.serial.replug();
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
    const problems = await scenarioProblems({
      run: (promise, what) => this.run(promise, { timeout: 60_000, what }),
      serial: this.serial,
      traffic: this.traffic,
      i2c: this.#i2c,
      power: this.#power,
      host: this.#host,
    });
    let capturePath = typeof this.#options.capture === "string" ? this.#options.capture : undefined;
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
    // Parts may be missing when start failed halfway.
    await this.#sim?.restoring?.catch(() => undefined);
    this.power.stopDischarge();
    await this.serial.close();
    // The board closes the I2C backend it made; a software bus of our own is closed here.
    if (this.#i2c && !this.#rig) await this.#i2c.close();
    await this.#assembled?.close();
    this.timeline.stop();
    await this.#hub?.close();
    await this.capture?.close();
  }
}
