import { jsonTooDeep, jsonValueDepth, MAX_JSON_DEPTH } from "../core/jsonDepth.js";
import { Attn } from "./attn/Attn.js";
import { unconnectedAttnPin, type AttnPin } from "./attn/AttnPin.js";
import { BinaryBuffer, DEFAULT_BINARY_MAX } from "./BinaryBuffer.js";
import type { Clock } from "../core/Clock.js";
import {
  crcMalformed,
  crcMismatch,
  jsonObjectExpected,
  jsonPrematureEnd,
  lineTooLong,
  requestTooDeep,
} from "./errors.js";
import type { ModuleContext } from "./ModuleContext.js";
import { silentLog, type ModuleLog } from "./ModuleLog.js";
import { SimPowerSource, type PowerSource } from "./PowerSource.js";
import { randomInt, type Random } from "../core/Random.js";
import type { LineReply } from "./host/LineReply.js";
import { appendCrc, checkRequestCrc } from "./host/RequestCrc.js";
import { RequestDispatcher } from "./requests/RequestDispatcher.js";
import { allRequests } from "./requests/index.js";
import type { KvStore, RecoveryReport } from "./storage/KvStore.js";
import { Notebox } from "./storage/Notebox.js";
import type { FlashFs } from "./storage/flash/FlashFs.js";
import { LargeObjectStore } from "./storage/LargeObjectStore.js";
import { WriterQueue, type Turn } from "./WriterQueue.js";
import type { Crypto } from "../core/Crypto.js";
import { SeededCrypto } from "../core/SeededCrypto.js";
import { unconnectedHubLink, type HubLink } from "./radio/HubLink.js";
import { GOOD_COVERAGE, type RadioConditions } from "./radio/RadioConditions.js";
import { VARIANTS, resolveVariant, type Variant, type VariantName } from "./Variant.js";
import { onUsbPowerChange } from "./power/onUsbPowerChange.js";
import { VoltageMonitor } from "./power/VoltageMonitor.js";
import {
  ENERGY_CONFIG_KEY,
  EnergyMeter,
  energyRates,
  type EnergyCounters,
  type EnergyRates,
} from "./power/EnergyMeter.js";
import type { SessionEnergy } from "../protocol/messages.js";
import { SimError } from "./SimError.js";
import { isJsonObject, type JsonObject } from "../core/json.js";
import { Sensors, type LocationReport } from "./sensors/Sensors.js";
import { SyncEngine, type IdentityRecord, type KeyRecord, type SyncHost } from "./sync/SyncEngine.js";
import { SyncSchedule } from "./sync/SyncSchedule.js";
import { CARD_KEYS } from "./config/CardSettings.js";
import { firmwareBody, installedRelease } from "./FirmwareVersion.js";
import { DfuAgent, type DfuHost, type DfuOptions } from "./dfu/DfuAgent.js";
import { WebAgent } from "./web/WebAgent.js";
import { encodeBase64 } from "../core/base64.js";
import type { Surroundings } from "./world/Surroundings.js";
import { World } from "./world/World.js";
import { inBackground } from "./inBackground.js";

export interface ModuleOptions {
  readonly clock: Clock;
  readonly random: Random;
  /** Where the module's flash lives. */
  readonly store: KvStore;
  /** A variant name, a SKU, either with `+xp` for the extended-power module, or a Variant. */
  readonly variant?: VariantName | string | Variant;
  readonly power?: PowerSource;
  readonly log?: ModuleLog;
  /** Longest JSON request line accepted, in bytes (default 8192). */
  readonly maxRequestBytes?: number;
  /**
   * Start with the time known, as if the module had already synced once (CI convenience). By
   * default the time is unknown until a hub session or a host sideload sets it.
   */
  readonly timeKnown?: boolean;
  /**
   * Answer fields that no request reads with a `{syntax}` error instead of ignoring them (the
   * real module ignores them; this catches misspelt arguments during development).
   */
  readonly strictArgs?: boolean;
  /** Log every request line and reply (info level). */
  readonly trace?: boolean;
  /** Capacity of the binary buffer in unencoded bytes (`card.binary` `max`, default 130554). */
  readonly binaryMax?: number;
  /** The ATTN output toward the host (a GPIO line on a rig); unconnected by default. */
  readonly attnPin?: AttnPin;
  /** Coverage and signal (good LTE coverage by default). */
  readonly radio?: RadioConditions;
  /** The connection to the hub (none by default: the module cannot sync). */
  readonly hubLink?: HubLink;
  /** Key pairs and signatures for the module's identity (seeded from `random` by default). */
  readonly crypto?: Crypto;
  /** The ProductUID the module syncs with until its host sets one (`hub.set product`). */
  readonly defaultProduct?: string;
  /**
   * Where the module keeps firmware images it downloads (beside its journal on the same flash);
   * absent: a module without room for images (DFU answers so).
   */
  readonly images?: FlashFs;
  /**
   * The world around the module (position, GPS sky, motion, temperature, light, AUX lines): a
   * `World` a scenario drives. By default a world of its own where nothing has placed the module.
   */
  readonly world?: Surroundings;
  /**
   * Firmware updates: how much a session downloads, the host's RESET and BOOT lines for outboard
   * updates (a rig's GPIO lines), the outboard serial rate.
   */
  readonly dfu?: DfuOptions;
  /** The energy model's rates, over the variant's defaults (firmware/power/EnergyMeter.ts). */
  readonly energy?: Partial<EnergyRates>;
}

export const DEFAULT_MAX_REQUEST_BYTES = 8192;

const decoder = new TextDecoder();
let sharedDispatcher: RequestDispatcher | undefined;

/**
 * One simulated module, composed from its ports. Requests are processed one at a time in
 * arrival order, whichever link they came from, as on the real module.
 */
export class Module implements ModuleContext, SyncHost, DfuHost {
  readonly clock: Clock;
  readonly random: Random;
  readonly variant: Variant;
  readonly power: PowerSource;
  readonly radio: RadioConditions;
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
  #energy: EnergyMeter | undefined;
  readonly #energyRates: EnergyRates;
  #bootedAt = 0;
  #timeBase: { clockMs: number; seconds: number } | undefined;
  /** One writer at a time: requests, background work, the sync engine, a harness's world. */
  readonly #writers = new WriterQueue();
  /** The turn of the writer running now (undefined between writers). */
  #turn: Turn | undefined;
  /** Counts boots, so that a writer waiting across a reboot knows its state is gone. */
  #boots = 0;
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
    if (!resolved)
      throw new Error(
        `unknown module variant ${String(variant)}; one of ${Object.keys(VARIANTS).join(", ")}`,
      );
    this.variant = resolved;
    this.power = options.power ?? new SimPowerSource();
    this.radio = options.radio ?? steadyRadio;
    this.hubLink = options.hubLink ?? unconnectedHubLink;
    this.crypto = options.crypto ?? new SeededCrypto(options.random);
    this.log = options.log ?? silentLog;
    this.#maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.dispatcher = sharedDispatcher ??= new RequestDispatcher(allRequests);
    this.#ownWorld = options.world ? undefined : new World({ clock: options.clock });
    this.world = options.world ?? this.#ownWorld!;
    this.#energyRates = energyRates(this.variant.name, options.energy);
  }

  /** Powers a module on: reads its flash and gets ready for requests. */
  static async boot(options: ModuleOptions): Promise<Module> {
    const module = new Module(options);
    await module.#boot();
    return module;
  }

  async #boot(): Promise<void> {
    this.#boots++;
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
    // RAM state: a restart loses it, as on the real module.
    this.#binary = new BinaryBuffer(this.#options.binaryMax ?? DEFAULT_BINARY_MAX);
    this.#attn?.dispose();
    this.#attn = new Attn({
      clock: this.clock,
      pin: this.#options.attnPin ?? unconnectedAttnPin,
      log: this.log,
      off: this.#notebox.config<boolean>(Attn.OFF_CONFIG_KEY) === true,
    });
    await this.#ensureIdentity();
    // The sync engine's sessions, queue and signals are RAM: a restart starts a new one.
    this.#sync?.dispose();
    this.#sync = new SyncEngine(this);
    // The schedule's timer, boxes and temporary sessions are RAM; the cadence is in flash.
    this.#schedule?.dispose();
    this.#schedule = new SyncSchedule(this);
    // The energy counters are in flash; each session adds to them and saves them.
    const energy = new EnergyMeter(
      this.clock,
      this.#energyRates,
      this.#notebox.config<Partial<EnergyCounters>>(ENERGY_CONFIG_KEY),
      () => this.#sync?.isOnline ?? false,
    );
    this.#energy = energy;
    this.#sync.onSession((outcome) => {
      energy.session({
        started: outcome.started,
        ended: outcome.ended,
        ok: outcome.ok,
        held: outcome.held,
        bytes: outcome.traffic.bytes_sent + outcome.traffic.bytes_received,
      });
      this.#background(() => this.#saveEnergy(energy));
    });
    // Web requests ride on the new engine's sessions; asynchronous ones of before are dropped.
    this.#web?.dispose();
    this.#web = new WebAgent(this);
    // Firmware updates ride on the new engine's sessions; what was under way is in flash.
    this.#dfu?.dispose();
    this.#dfu = new DfuAgent(this, this.#options.dfu);
    this.#dfu.start();
    // Sensor state and timers are RAM: a restart starts them again from the settings in flash.
    this.#sensors?.dispose();
    this.#sensors = new Sensors(this);
    this.#sensors.start();
    this.#schedule.start();
    const recovery = this.#notebox.recovery;
    if (recovery) {
      this.log.warn("flash recovered after an unclean shutdown", { details: recovery.details });
      await this.#noteRecovery(recovery);
    }
    this.log.info("module booted", { device: this.deviceUid, variant: this.variant.name });
  }

  /**
   * Makes the DeviceUID at first boot, and the key pair the module proves it to its hub with
   * (kept in its own record; made at a later boot if the flash had no room, or had none before).
   */
  async #ensureIdentity(): Promise<void> {
    const box = this.#notebox;
    const identity = box.config<IdentityRecord>(CARD_KEYS.identity);
    if (identity && box.config<KeyRecord>(CARD_KEYS.key)) return;
    const keys = await this.crypto.generateKeyPair();
    const key: KeyRecord = { private: encodeBase64(keys.privateKey), public: encodeBase64(keys.publicKey) };
    const device = identity ?? { device: this.#newDeviceUid() };
    try {
      await box.transact(() => {
        box.setConfig(CARD_KEYS.identity, device);
        box.setConfig(CARD_KEYS.key, key);
      });
    } catch (error) {
      // Only a full flash is survivable here: the module boots without a key (and cannot sync
      // until there is room); anything else (the power went) fails the boot as it would.
      if (!(error instanceof SimError && error.has("file-storage-full"))) throw error;
      this.log.warn("no room in flash for the module's key pair: it cannot sync until there is", {
        error: error.message,
      });
      if (!identity) await box.transact(() => box.setConfig(CARD_KEYS.identity, device));
    }
  }

  /** Tells the hub what the flash repaired, as a `_health.qo` note (the module boots regardless). */
  async #noteRecovery(recovery: RecoveryReport): Promise<void> {
    const body: JsonObject = { text: `flash recovered: ${recovery.details.join("; ")}` };
    if (recovery.truncatedBytes) body["truncated_bytes"] = recovery.truncatedBytes;
    if (recovery.droppedRecords) body["dropped_records"] = recovery.droppedRecords;
    try {
      await this.#notebox.transact(() =>
        this.#notebox.appendToQueue("_health.qo", { body, time: this.noteTime() }),
      );
    } catch (error) {
      this.log.error("could not store the flash recovery note", { error: String((error as Error)?.message) });
    }
  }

  #newDeviceUid(): string {
    let digits = "8";
    for (let i = 0; i < 14; i++) digits += String(randomInt(this.random, 10));
    return `dev:${digits}`;
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
    return this.#energy!;
  }

  energyFields(): SessionEnergy | undefined {
    return this.#energy?.sessionFields();
  }

  #saveEnergy(energy: EnergyMeter): void {
    if (energy === this.#energy) this.#notebox.setConfig(ENERGY_CONFIG_KEY, energy.counters());
  }

  /** Saves the energy counters now (a clean power cycle does before it closes the module). */
  saveEnergy(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#serialize(() => this.#saveEnergyBeforeRestart());
  }

  /** Saves the energy counters before a restart (the next boot continues from them). */
  async #saveEnergyBeforeRestart(): Promise<void> {
    const energy = this.#energy;
    if (!energy) return;
    try {
      await this.#notebox.transact(() => this.#saveEnergy(energy));
    } catch (error) {
      this.log.warn("could not save the energy counters", { error: String((error as Error)?.message) });
    }
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
    const identity = this.#notebox.config<IdentityRecord>(CARD_KEYS.identity) ?? { device: "" };
    const key = this.#notebox.config<KeyRecord>(CARD_KEYS.key);
    return key ? { ...identity, key } : identity;
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
    return this.#serialize(async () => {
      this.log.info("module restarting");
      await this.#saveEnergyBeforeRestart();
      await this.#boot();
    });
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
    return this.#serialize(async () => {
      const receiver = this.#binaryReceiver;
      if (receiver) {
        this.#binaryReceiver = undefined;
        receiver(undefined);
        return undefined;
      }
      return this.#errorLine(lineTooLong(this.#maxRequestBytes)).text;
    });
  }

  /**
   * Handles one line from a host link (without its `\n`) and returns the bytes to send back:
   * a JSON reply ending `\r\n`, `\r\n` alone for a blank line, or undefined (a `cmd`, binary data).
   */
  handleLine(line: Uint8Array): Promise<string | undefined> {
    return this.#serialize(async () => {
      const out = await this.#handleLine(line);
      this.#traceLine(line, out);
      return out?.text;
    });
  }

  /**
   * Like handleLine, with the raw bytes some replies are followed by on the wire (the COBS data
   * after a `card.binary.get` reply). Links that carry binary use this one.
   */
  handleLineReply(line: Uint8Array): Promise<LineReply | undefined> {
    return this.#serialize(async () => {
      const out = await this.#handleLine(line);
      this.#traceLine(line, out);
      return out;
    });
  }

  /** Processes one request object in-process (no CRC): the reply, or undefined for a `cmd`. */
  request(req: JsonObject): Promise<JsonObject | undefined> {
    return this.#serialize(async () => {
      if (jsonValueDepth(req, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
        return { err: requestTooDeep(MAX_JSON_DEPTH).message };
      this.#after = undefined;
      this.#attn.requestReceived();
      const { reply, name, ignored } = await this.dispatcher.dispatch(req, this, this.#dispatchOptions);
      this.#reportIgnored(name, ignored);
      this.#after = undefined;
      this.#attn.noticeFileChanges(this.#notebox);
      this.#sync?.noticeSyncRequests();
      this.#schedule?.plan();
      this.#dfu?.noticeMode();
      await this.#afterReply();
      return reply;
    });
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
    return this.#serialize(async () => {
      const result = await this.#notebox.transact(task);
      this.#attn.noticeFileChanges(this.#notebox);
      return result;
    });
  }

  /**
   * From inside a turn (a request handler or an `exclusive` task), waits for `io` without
   * holding the module: commits what the writer changed so far, lets the other writers run
   * while `io` is pending, then takes a new turn and continues in a new transaction. A request
   * that fails after the wait keeps what it committed before it.
   */
  async awaitIo<T>(io: () => Promise<T>): Promise<T> {
    const turn = this.#turn;
    if (!turn) throw new Error("Module.awaitIo: only a writer holding its turn can wait on I/O");
    const boots = this.#boots;
    const notebox = this.#notebox;
    const suspended = await notebox.suspend();
    this.#turn = undefined;
    turn.release();
    try {
      return await io();
    } finally {
      this.#turn = await this.#writers.acquire();
      if (this.#boots !== boots) {
        // The module restarted during the wait: the writer's state went with the RAM. Its
        // transaction stays out (the new Notebox has none), and the writer ends in an error.
        const again = this.#turn;
        this.#turn = undefined;
        again.release();
        // eslint-disable-next-line no-unsafe-finally
        throw new Error("the module restarted while the request waited");
      }
      notebox.resume(suspended);
    }
  }

  /** Like exclusive, for tasks nobody waits on: a failure is logged. */
  #background(task: () => void): void {
    inBackground(this, "background task", task, () => this.#closed);
  }

  /** Runs `task` in its own turn among the module's writers. */
  async #serialize<T>(task: () => Promise<T>): Promise<T> {
    const turn = await this.#writers.acquire();
    this.#turn = turn;
    try {
      return await task();
    } finally {
      // awaitIo may have swapped the turn; release whichever this writer holds now.
      const held = this.#turn ?? turn;
      this.#turn = undefined;
      held.release();
    }
  }

  async #handleLine(line: Uint8Array): Promise<LineReply | undefined> {
    const receiver = this.#binaryReceiver;
    if (receiver) {
      this.#binaryReceiver = undefined;
      receiver(line);
      // No binary packet is empty: a bare newline is a host resyncing, and gets its answer.
      return line.length === 0 ? { text: "\r\n" } : undefined;
    }
    if (line.length > this.#maxRequestBytes) return this.#errorLine(lineTooLong(this.#maxRequestBytes));
    const text = decoder.decode(line).trim();
    if (text === "") return { text: "\r\n" };

    // Measured on the text, before anything is parsed or built: handlers, the journal and replies
    // all walk request values recursively, and no request needs to nest this deep.
    if (jsonTooDeep(text)) return this.#errorLine(requestTooDeep(MAX_JSON_DEPTH));
    const crc = checkRequestCrc(text);
    let req: unknown;
    try {
      req = JSON.parse(text);
    } catch (error) {
      return this.#errorLine(jsonParseError(text, error));
    }
    if (!isJsonObject(req)) return this.#errorLine(jsonObjectExpected(text));
    const sequence = crc.kind === "ok" || crc.kind === "mismatch" ? crc.sequence : undefined;
    if (crc.kind === "mismatch" || crc.kind === "malformed") {
      if (req["cmd"] !== undefined && req["req"] === undefined) return undefined;
      const err = crc.kind === "mismatch" ? crcMismatch() : crcMalformed();
      const reply: JsonObject = { err: err.message };
      if (req["id"] !== undefined) reply["id"] = req["id"];
      return this.#wire(reply, sequence);
    }
    this.#after = undefined;
    this.#attn.requestReceived();
    const { reply, name, ignored } = await this.dispatcher.dispatch(req, this, this.#dispatchOptions);
    const after = reply && !reply["err"] ? this.#after : undefined;
    this.#after = undefined;
    const notice = this.#reportIgnored(name, ignored);
    this.#attn.noticeFileChanges(this.#notebox);
    this.#sync?.noticeSyncRequests();
    this.#schedule?.plan();
    this.#dfu?.noticeMode();
    await this.#afterReply();
    if (!reply) return undefined;
    const wired = this.#wire(reply, sequence);
    return {
      text: wired.text,
      ...(after ? { after } : {}),
      ...(notice ? { notices: [notice] } : {}),
    };
  }

  get #dispatchOptions(): { strictArgs?: boolean } {
    return { strictArgs: this.#options.strictArgs };
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

  /** `--trace`: each line and its answer, readable as they were on the wire. */
  #traceLine(line: Uint8Array, out: LineReply | undefined): void {
    if (!this.#options.trace) return;
    const text = decoder.decode(line.subarray(0, 512));
    const more = line.length > 512 ? ` ... (${line.length} bytes)` : "";
    this.log.info(`> ${text === "" ? "(blank line)" : text}${more}`);
    if (out) this.log.info(`< ${out.text.trimEnd() === "" ? "(blank line)" : out.text.trimEnd()}`);
  }

  #errorLine(error: SimError): LineReply {
    return this.#wire({ err: error.message }, undefined);
  }

  #wire(reply: JsonObject, sequence: number | undefined): LineReply {
    const json = JSON.stringify(reply);
    return { text: (sequence === undefined ? json : appendCrc(json, sequence)) + "\r\n" };
  }

  async #afterReply(): Promise<void> {
    if (!this.#restartPending) return;
    this.#restartPending = false;
    this.log.info("module restarting");
    await this.#saveEnergyBeforeRestart();
    await this.#boot();
  }
}

/** Coverage that never changes, for a module given no radio. */
const steadyRadio: RadioConditions = { state: () => GOOD_COVERAGE, onChange: () => () => undefined };

/**
 * The module's parser error for a line that is not JSON: a request cut short names the last
 * token it read; otherwise the rest of the line from where parsing failed is echoed.
 */
function jsonParseError(text: string, error: unknown): SimError {
  const message = String((error as Error)?.message);
  const match = /position (\d+)/.exec(message);
  const at = match ? Number(match[1]) : message.includes("end of JSON input") ? text.length : 0;
  if (at >= text.length) {
    const lastDelimiter = Math.max(
      text.lastIndexOf("{"),
      text.lastIndexOf(","),
      text.lastIndexOf(":"),
      text.lastIndexOf("["),
    );
    return jsonPrematureEnd(text.slice(lastDelimiter + 1));
  }
  return jsonObjectExpected(text.slice(at) || text);
}
