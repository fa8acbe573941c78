import { jsonValueDepth, MAX_JSON_DEPTH } from "../core/jsonDepth.js";
import { Attn } from "./attn/Attn.js";
import { unconnectedAttnPin } from "./attn/AttnPin.js";
import { BinaryBuffer, DEFAULT_BINARY_MAX } from "./BinaryBuffer.js";
import type { Clock } from "../core/Clock.js";
import { lineTooLong, requestTooDeep } from "./errors.js";
import type { ModuleContext } from "./ModuleContext.js";
import { silentLog, type ModuleLog } from "./ModuleLog.js";
import { DEFAULT_MAX_REQUEST_BYTES, type ModuleOptions } from "./ModuleOptions.js";
import { ModuleWriters } from "./ModuleWriters.js";
import { ensureIdentity, noteFlashRecovery, readIdentity } from "./ModuleIdentity.js";
import { SimPowerSource, type PowerSource } from "./PowerSource.js";
import type { Random } from "../core/Random.js";
import type { LineReply } from "./host/LineReply.js";
import { errorLine, readRequestLine, traceLine, wireReply } from "./host/RequestLine.js";
import { RequestDispatcher, type DispatchResult } from "./requests/RequestDispatcher.js";
import { allRequests } from "./requests/index.js";
import { traceRequested } from "./requests/cardConsole.js";
import { Notebox } from "./storage/Notebox.js";
import { LargeObjectStore } from "./storage/LargeObjectStore.js";
import type { Crypto } from "../core/Crypto.js";
import { ExchangeTrace, type ExchangeListener } from "./ExchangeTrace.js";
import { SeededCrypto } from "../core/SeededCrypto.js";
import { unconnectedHubLink, type HubLink } from "./radio/HubLink.js";
import type { RadioConditions } from "./radio/RadioConditions.js";
import { transportRadio } from "./radio/TransportRadio.js";
import type { WifiStation } from "./radio/WifiStation.js";
import { resolveVariant, unknownVariant, type Variant } from "./Variant.js";
import { onUsbPowerChange } from "./power/onUsbPowerChange.js";
import { VoltageMonitor } from "./power/VoltageMonitor.js";
import { energyRates, type EnergyMeter } from "./power/EnergyMeter.js";
import { ModuleEnergy } from "./power/ModuleEnergy.js";
import type { SessionEnergy } from "../protocol/messages.js";
import type { JsonObject } from "../core/json.js";
import { Sensors, type LocationReport } from "./sensors/Sensors.js";
import { SyncEngine, type IdentityRecord, type SyncHost } from "./sync/SyncEngine.js";
import { SyncSchedule } from "./sync/SyncSchedule.js";
import { firmwareBody, installedRelease } from "./FirmwareVersion.js";
import { DfuAgent, type DfuHost } from "./dfu/DfuAgent.js";
import { WebAgent } from "./web/WebAgent.js";
import type { Surroundings } from "./world/Surroundings.js";
import { World } from "./world/World.js";
import { inBackground } from "./inBackground.js";

export { DEFAULT_MAX_REQUEST_BYTES, type ModuleOptions } from "./ModuleOptions.js";

const decoder = new TextDecoder();

/** A request's reply, the bytes after it on the wire, what was said of fields it ignored. */
type Dispatched = {
  reply: JsonObject | undefined;
  after: Uint8Array | undefined;
  notice: string | undefined;
};
let sharedDispatcher: RequestDispatcher | undefined;

/**
 * One simulated module, composed from its ports. Requests are processed one at a time in
 * arrival order, whichever link they came from, as on the real module.
 *
 * Its parts: `ModuleWriters` (the writers' turns, `awaitIo`), `host/RequestLine` (a host line
 * read as a request, replies as the wire carries them), `ModuleIdentity` (DeviceUID and keys),
 * `power/ModuleEnergy` (the energy counters across boots), and the parts each boot makes anew
 * (sync engine, schedule, sensors, web and DFU agents, ATTN, binary buffer).
 */
export class Module implements ModuleContext, SyncHost, DfuHost {
  readonly clock: Clock;
  readonly random: Random;
  readonly variant: Variant;
  readonly power: PowerSource;
  readonly radio: RadioConditions;
  readonly wifi: WifiStation;
  readonly hubLink: HubLink;
  readonly crypto: Crypto;
  readonly log: ModuleLog;
  readonly dispatcher: RequestDispatcher;
  readonly world: Surroundings;
  readonly #ownWorld: World | undefined;
  readonly #options: ModuleOptions;
  readonly #maxRequestBytes: number;
  #notebox!: Notebox;
  #voltage: VoltageMonitor | undefined;
  readonly #energy: ModuleEnergy;
  readonly #exchanges = new ExchangeTrace();
  #bootedAt = 0;
  #timeBase: { clockMs: number; seconds: number } | undefined;
  /** One writer at a time: requests, background work, the sync engine, a harness's world. */
  readonly #writers = new ModuleWriters(() => this.#notebox);
  #restartPending = false;
  #binaryReceiver: ((bytes: Uint8Array | undefined) => void) | undefined;
  #binary!: BinaryBuffer;
  #attn!: Attn;
  #sensors: Sensors | undefined;
  #sync: SyncEngine | undefined;
  #schedule: SyncSchedule | undefined;
  #dfu: DfuAgent | undefined;
  #web: WebAgent | undefined;
  #images: LargeObjectStore | undefined;
  #after: Uint8Array | undefined;
  #closed = false;

  private constructor(options: ModuleOptions) {
    this.#options = options;
    this.clock = options.clock;
    this.random = options.random;
    const variant = options.variant ?? "cell";
    const resolved = typeof variant === "string" ? resolveVariant(variant) : variant;
    if (!resolved) throw unknownVariant(variant);
    this.variant = resolved;
    this.power = options.power ?? new SimPowerSource();
    // The transport method (`card.transport`) and the WiFi station (`card.wifi`) pick the technology.
    const config = <T>(key: string) => this.#notebox?.config<T>(key);
    const radio = transportRadio(options.radio, resolved, this.clock, config, () => this.world);
    [this.radio, this.wifi] = [radio, radio.wifi];
    this.hubLink = options.hubLink ?? unconnectedHubLink;
    this.crypto = options.crypto ?? new SeededCrypto(options.random);
    this.log = options.log ?? silentLog;
    this.#maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.dispatcher = sharedDispatcher ??= new RequestDispatcher(allRequests);
    this.#ownWorld = options.world ? undefined : new World({ clock: options.clock });
    this.world = options.world ?? this.#ownWorld!;
    this.#energy = new ModuleEnergy(this, energyRates(this.variant.name, options.energy));
  }

  /** Powers a module on: reads its flash and gets ready for requests. */
  static async boot(options: ModuleOptions): Promise<Module> {
    const module = new Module(options);
    await module.#boot();
    return module;
  }

  /** Reads the flash, then makes anew what RAM held (a restart loses it, as on the real module). */
  async #boot(): Promise<void> {
    this.#writers.booted();
    this.#notebox = await Notebox.open(this.#options.store);
    await this.#images?.close();
    this.#images = this.#options.images ? await LargeObjectStore.open(this.#options.images) : undefined;
    this.#bootedAt = this.clock.now();
    // A restart starts a new supply history, as RAM is lost.
    this.#voltage?.dispose();
    this.#voltage = new VoltageMonitor(this.clock, this.power, (usb, at, volts) =>
      this.#background(() => onUsbPowerChange(this, usb, at, volts)),
    );
    this.#timeBase = this.#options.timeKnown ? { clockMs: 0, seconds: 0 } : undefined;
    this.#binaryReceiver = undefined;
    this.#binary = new BinaryBuffer(this.#options.binaryMax ?? DEFAULT_BINARY_MAX);
    this.#attn?.dispose();
    this.#attn = new Attn({
      clock: this.clock,
      pin: this.#options.attnPin ?? unconnectedAttnPin,
      log: this.log,
      off: this.#notebox.config<boolean>(Attn.OFF_CONFIG_KEY) === true,
    });
    await ensureIdentity(this, this.#options.deviceUid);
    this.#startParts();
    const recovery = this.#notebox.recovery;
    if (recovery) {
      this.log.warn("flash recovered after an unclean shutdown", { details: recovery.details });
      await noteFlashRecovery(this, recovery);
    }
    this.log.info("module booted", { device: this.deviceUid, variant: this.variant.name });
  }

  /** At boot: the parts that live in RAM start again from what the flash kept. */
  #startParts(): void {
    // The sync engine's sessions, queue and signals are RAM: a restart starts a new one.
    this.#sync?.dispose();
    this.#sync = new SyncEngine(this);
    // The schedule's timer, boxes and temporary sessions are RAM; the cadence is in flash.
    this.#schedule?.dispose();
    this.#schedule = new SyncSchedule(this);
    // The energy counters are in flash; each session adds to them and saves them.
    this.#energy.boot(this.#sync, (task) => this.#background(task));
    // Web requests ride on the new engine's sessions; asynchronous ones of before are dropped.
    this.#web?.dispose();
    this.#web = new WebAgent(this);
    // Firmware updates ride on the new engine's sessions; what was under way is in flash.
    this.#dfu?.dispose();
    this.#dfu = new DfuAgent(this, this.#options.dfu);
    this.#dfu.start();
    this.wifi.boot(); // the SoftAP is RAM
    // Sensor state and timers are RAM: a restart starts them again from the settings in flash.
    this.#sensors?.dispose();
    this.#sensors = new Sensors(this);
    this.#sensors.start();
    this.#schedule.start();
  }

  get notebox(): Notebox {
    return this.#notebox;
  }

  /** The supply's history since boot (`card.voltage`, voltage-variable settings). */
  get voltage(): VoltageMonitor {
    return this.#voltage!;
  }

  /** The energy model: what sessions, radio time and idle hours cost (`report()` for totals). */
  get energy(): EnergyMeter {
    return this.#energy.meter!;
  }

  energyFields(): SessionEnergy | undefined {
    return this.#energy.sessionFields();
  }

  /** Saves the energy counters now (a clean power cycle does before it closes the module). */
  saveEnergy(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#writers.serialize(() => this.#energy.saveNow());
  }

  /** The binary buffer (RAM; emptied by a restart). */
  get binary(): BinaryBuffer {
    return this.#binary;
  }

  /** The ATTN pin logic (`card.attn`); later features report their events to it. */
  get attn(): Attn {
    return this.#attn;
  }

  /** GPS, accelerometer, temperature logging, AUX pins and triangulation. */
  get sensors(): Sensors {
    return this.#sensors!;
  }

  get bootedAt(): number {
    return this.#bootedAt;
  }

  /** The module's DeviceUID (`dev:` and 15 digits), fixed at first boot. */
  get deviceUid(): string {
    return this.identity().device;
  }

  identity(): IdentityRecord {
    return readIdentity(this.#notebox);
  }

  /** The ProductUID the module syncs with until its host sets one. */
  get defaultProduct(): string | undefined {
    return this.#options.defaultProduct;
  }

  /** The `card.version` body: what the module tells its hub it runs (an update may have changed it). */
  firmware(): JsonObject {
    return firmwareBody(this.variant, installedRelease(this.#notebox));
  }

  triangulationSent(): void {
    this.sensors.triangulation.scanned(this.noteTime());
  }

  locationReport(): LocationReport {
    return this.sensors.locationReport();
  }

  syncRequests(): ReadonlySet<string> {
    return this.#notebox.syncRequests();
  }

  takeSyncRequests(): string[] {
    return this.#notebox.takeSyncRequests();
  }

  /** Firmware images on the module's flash (undefined when it has no room for them). */
  get images(): LargeObjectStore | undefined {
    return this.#images;
  }

  /** The module's end of the sync protocol (RAM: a restart makes a new one). */
  get sync(): SyncEngine {
    return this.#sync!;
  }

  /** When the module syncs by itself, and its penalty boxes (RAM: a restart makes a new one). */
  get schedule(): SyncSchedule {
    return this.#schedule!;
  }

  /** Firmware updates of the host and of the module (RAM: a restart makes a new agent). */
  get dfu(): DfuAgent {
    return this.#dfu!;
  }

  /** Web requests through the hub's proxy routes (RAM: a restart makes a new agent). */
  get web(): WebAgent {
    return this.#web!;
  }

  /** Restarts the module on the same flash, as `card.restart` does, from outside a request. */
  restart(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#writers.serialize(() => this.#reboot());
  }

  time(): number | undefined {
    if (!this.#timeBase) return undefined;
    return Math.floor(this.#timeBase.seconds + (this.clock.now() - this.#timeBase.clockMs) / 1000);
  }

  setTime(seconds: number): void {
    this.#timeBase = { clockMs: this.clock.now(), seconds };
  }

  noteTime(): number {
    return this.time() ?? 0;
  }

  restartAfterReply(): void {
    this.#restartPending = true;
  }

  sendAfterReply(bytes: Uint8Array): void {
    this.#after = bytes;
  }

  /**
   * The next line from the host is raw binary for `receiver` (after `card.binary.put`); the
   * receiver gets undefined when that line was too long for the link to hold.
   */
  expectBinary(receiver: (bytes: Uint8Array | undefined) => void): void {
    this.#binaryReceiver = receiver;
  }

  /** A line too long for the link was dropped: answer it (or fail the pending binary transfer). */
  handleOverflow(_length: number): Promise<string | undefined> {
    return this.#writers.serialize(async () => {
      const receiver = this.#binaryReceiver;
      if (receiver) {
        this.#binaryReceiver = undefined;
        receiver(undefined);
        return undefined;
      }
      return errorLine(lineTooLong(this.#maxRequestBytes)).text;
    });
  }

  /**
   * Calls `listener` with each line a host link sent (its first 2 KiB, as text) and the reply
   * sent back (undefined for none): the module page's request trace. Returns the unsubscribe.
   */
  onExchange(listener: ExchangeListener): () => void {
    return this.#exchanges.listen(listener);
  }

  /**
   * Handles one line from a host link (without its `\n`) and returns the bytes to send back:
   * a JSON reply ending `\r\n`, `\r\n` alone for a blank line, or undefined (a `cmd`, binary data).
   */
  async handleLine(line: Uint8Array): Promise<string | undefined> {
    return (await this.handleLineReply(line))?.text;
  }

  /**
   * Like handleLine, with the raw bytes some replies are followed by on the wire (the COBS data
   * after a `card.binary.get` reply). Links that carry binary use this one.
   */
  handleLineReply(line: Uint8Array): Promise<LineReply | undefined> {
    return this.#writers.serialize(async () => {
      const out = await this.#handleLine(line);
      // `--trace`, or the host's card.trace mode:on.
      if (this.#options.trace || traceRequested(this.#notebox)) traceLine(this.log, line, out);
      this.#exchanges.tell(line, out?.text);
      return out;
    });
  }

  /** Processes one request object in-process (no CRC): the reply, or undefined for a `cmd`. */
  request(req: JsonObject): Promise<JsonObject | undefined> {
    return this.#writers.serialize(() =>
      jsonValueDepth(req, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
        ? Promise.resolve({ err: requestTooDeep(MAX_JSON_DEPTH).message })
        : this.#dispatch(req).then((dispatched) => dispatched.reply),
    );
  }

  /** Waits for queued writers, then lets go of the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#voltage?.dispose();
    this.#sensors?.dispose();
    this.#schedule?.dispose();
    this.#sync?.dispose();
    this.#dfu?.dispose();
    this.#web?.dispose();
    this.#ownWorld?.dispose();
    await this.#writers.idle();
    await this.#images?.close();
    this.#attn.dispose();
    await this.#options.store.close();
  }

  /**
   * Runs a change the module's state undergoes outside a request (background work, the sync
   * engine, a harness's scripted world) in its turn among the module's writers: after every
   * request and task queued before it, alone, as one Notebox transaction (durable when the
   * promise resolves, rolled back if `task` throws). Never call it from inside a request handler
   * or another task: the caller would wait for its own turn.
   */
  exclusive<T>(task: () => T | Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("the module is closed"));
    return this.#writers.serialize(() =>
      this.#notebox.transact(task).then((result) => {
        this.#attn.noticeFileChanges(this.#notebox);
        return result;
      }),
    );
  }

  /**
   * From inside a turn (a request handler or an `exclusive` task), waits for `io` without
   * holding the module: commits what the writer changed so far, lets the other writers run
   * while `io` is pending, then takes a new turn and continues in a new transaction. A request
   * that fails after the wait keeps what it committed before it.
   */
  awaitIo<T>(io: () => Promise<T>): Promise<T> {
    return this.#writers.awaitIo(io);
  }

  /** Like exclusive, for tasks nobody waits on: a failure is logged. */
  #background(task: () => void): void {
    inBackground(this, "background task", task, () => this.#closed);
  }

  async #handleLine(line: Uint8Array): Promise<LineReply | undefined> {
    const receiver = this.#binaryReceiver;
    if (receiver) {
      this.#binaryReceiver = undefined;
      receiver(line);
      // No binary packet is empty: a bare newline is a host resyncing, and gets its answer.
      return line.length === 0 ? { text: "\r\n" } : undefined;
    }
    if (line.length > this.#maxRequestBytes) return errorLine(lineTooLong(this.#maxRequestBytes));
    const text = decoder.decode(line).trim();
    if (text === "") return { text: "\r\n" };
    const read = readRequestLine(text);
    if (read.kind === "answer") return read.answer;
    const { reply, after, notice } = await this.#dispatch(read.req);
    if (!reply) return undefined;
    const wired = wireReply(reply, read.sequence);
    return {
      text: wired.text,
      ...(after ? { after } : {}),
      ...(notice ? { notices: [notice] } : {}),
    };
  }

  /**
   * Runs one request in the writer's turn, then what follows every request: ATTN and the sync
   * engine, schedule and DFU mode hear of it, and a restart it asked for happens.
   */
  #dispatch(req: JsonObject): Promise<Dispatched> {
    this.#after = undefined;
    this.#attn.requestReceived();
    return this.dispatcher
      .dispatch(req, this, { strictArgs: this.#options.strictArgs })
      .then((result) => this.#dispatched(result));
  }

  /** What follows every request, once its handler answered (`#dispatch`). */
  #dispatched({ reply, name, ignored }: DispatchResult): Dispatched | Promise<Dispatched> {
    const after = reply && !reply["err"] ? this.#after : undefined;
    this.#after = undefined;
    const notice = this.#reportIgnored(name, ignored);
    this.#attn.noticeFileChanges(this.#notebox);
    this.#sync?.noticeSyncRequests();
    this.#schedule?.plan();
    this.#dfu?.noticeMode();
    const dispatched = { reply, after, notice };
    return this.#restartPending ? this.#afterReply().then(() => dispatched) : dispatched;
  }

  /**
   * Fields the module ignored: usually a misspelt argument, so say so where developers look.
   * Returns what it said, for links that show it to the sender.
   */
  #reportIgnored(name: string | undefined, ignored: readonly string[] | undefined): string | undefined {
    if (!ignored || ignored.length === 0) return undefined;
    const notice = `${name} ignored unrecognized argument(s): ${ignored.join(", ")}`;
    this.log.warn(notice, { request: name, fields: ignored });
    return notice;
  }

  async #afterReply(): Promise<void> {
    if (!this.#restartPending) return;
    this.#restartPending = false;
    await this.#reboot();
  }

  /** In a turn: restarts on the same flash, the energy counters saved first. */
  async #reboot(): Promise<void> {
    this.log.info("module restarting");
    await this.#energy.saveNow();
    await this.#boot();
  }
}
