import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import { publicKeyToPem } from "../../core/Crypto.js";
import { jsonLengthBound, type JsonObject } from "../../core/json.js";
import { notefileKind } from "../../core/NotefileKind.js";
import { mergeNote } from "../../protocol/merge.js";
import type { NoteRecord } from "../../protocol/NoteRecord.js";
import type {
  AckReply,
  ChangeBatch,
  HelloReply,
  OpenReply,
  ProtocolReply,
  ProtocolRequest,
  PullReply,
  PushReply,
  SessionContext,
  SessionEnergy,
  SessionTrigger,
  SignalRecord,
  SignalsReply,
  TowerRecord,
} from "../../protocol/messages.js";
import { BATCH_LIMITS, signedText } from "../../protocol/messages.js";
import { readReply, ReplyError } from "../../protocol/readReply.js";
import { sessionRadio } from "../../protocol/sessionRadio.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { CARD_KEYS, type TimeZone } from "../config/CardSettings.js";
import { ENV_KEYS, Environment, type HubEnvironment } from "../env/Environment.js";
import { effectiveMode, hubSettings, type SyncMode } from "../config/HubConfig.js";
import type { ModuleCore } from "../ModuleCore.js";
import type { LocationReport } from "../sensors/Sensors.js";
import type { CellTower } from "../world/Surroundings.js";
import { HubLinkError } from "../radio/HubLink.js";
import { canReachHub } from "../radio/RadioConditions.js";
import { collectChanges } from "../storage/noteChanges.js";
import type { Notefile } from "../storage/Notefile.js";
import { purgeTombstones } from "../storage/noteOps.js";
import { arrivedUnchanged, fromRecord, toRecord } from "../storage/noteVersions.js";
import type { ConnectFailure } from "./PenaltyBox.js";
import { addUsage, setSyncState, syncState, type Traffic } from "./SyncState.js";

/** Notes per batch, and the JSON size a batch the module sends stays under. */
/** How long a held (continuous) session asks the hub to wait for signals per request, ms. */
const SIGNAL_WAIT_MS = 60_000;

/** The module's Ed25519 key pair, base64 (made at first boot, kept by every reset). */
export interface KeyRecord {
  readonly private: string;
  readonly public: string;
}

/** What the module keeps of its identity: its DeviceUID, and its key pair once it has one. */
export interface IdentityRecord {
  readonly device: string;
  readonly key?: KeyRecord;
}

/** What a sync needs of the module besides `ModuleCore`. */
export interface SyncHost extends ModuleCore {
  /** Runs `task` in its turn among the module's writers, as one transaction. */
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
  /** The module's identity record (device UID and keys). */
  identity(): IdentityRecord;
  /** The module's `card.version` body (the session context's firmware). */
  firmware(): JsonObject;
  /** Notefiles requests asked to be synced now (`note.add sync:true` ...), until a sync takes them. */
  syncRequests(): ReadonlySet<string>;
  takeSyncRequests(): string[];
  /** Where the module is, for the session's context. */
  locationReport(): LocationReport;
  /** A session carried the triangulation scans (`card.triangulate on:false` waits for motion now). */
  triangulationSent(): void;
  /** The ProductUID to sync with until the host sets one. */
  readonly defaultProduct: string | undefined;
  /** The energy model's counters for the session record (absent: none are sent). */
  energyFields?(): SessionEnergy | undefined;
}

export interface SyncRequest {
  readonly why: SessionTrigger;
  /** Only download (`hub.sync in:true`) or only upload (`out:true`). */
  readonly in?: boolean;
  readonly out?: boolean;
}

/** What `hub.sync.status`, `hub.status` and `card.status` report. */
export interface SyncStatus {
  /** Text with the module's `{...}` status token. */
  readonly status: string;
  readonly running: boolean;
  /** A session is open now (held open in continuous mode, or a sync in progress). */
  readonly connected: boolean;
  /** Clock ms of the last explicit request, of the last completed sync. */
  readonly requestedAt?: number;
  readonly completedAt?: number;
  /** The last sync failed. */
  readonly alert: boolean;
  /** Why the last sync failed, as the module reports it. */
  readonly error?: string;
}

/** A sync that failed for a reason the module reports (`{sync-error}`, `{auth}` ...). */
export class SyncFailure extends Error {}

/** What the sync schedule decides for the engine: the mode in force, whether a sync may start. */
export interface SyncPolicy {
  /** The mode in force (temporary continuous mode included). */
  mode(): SyncMode;
  /** A sync that notefiles asked for (`sync:true`) may start now (no penalty box holds it). */
  mayStart(): boolean;
}

/** A session with the hub, open now: what session steps and online requests talk through. */
export interface OpenSession {
  readonly why: SessionTrigger;
  /** The connection is encrypted (secure notefiles and images move only then). */
  readonly secure: boolean;
  /**
   * One exchange in the session: `v` and the session token are added, the traffic is counted,
   * and a reply with `err` throws a `SyncFailure`.
   */
  exchange<R extends ProtocolReply>(request: { readonly type: string } & JsonObject): Promise<R>;
}

/**
 * Work that takes part in every sync session, after the notefiles moved and before the session
 * closes (a firmware download, a report). A step that throws fails the session.
 */
export interface SessionStep {
  readonly name: string;
  run(session: OpenSession): Promise<void>;
}

/** How one session went, for schedules, penalty boxes and a harness's timeline. */
export interface SessionOutcome {
  readonly why: SessionTrigger;
  /** Clock ms the session started and ended. */
  readonly started: number;
  readonly ended: number;
  readonly ok: boolean;
  /** The failure as the module reports it (`{sync-error}`, `{auth}` ...). */
  readonly error?: string;
  /** The link failed (no coverage, no answer) rather than the hub refusing. */
  readonly linkFailure?: boolean;
  /** The session could not connect: no network registration, or the hub did not answer. */
  readonly connectFailure?: ConnectFailure;
  readonly traffic: Traffic;
  /** The session stays open (continuous mode). */
  readonly held: boolean;
}

/**
 * The module's end of the sync protocol (docs/sync-protocol.md): sessions with the hub over the
 * `HubLink` port. Each step that reads or changes the module's state takes its turn among the
 * module's writers as one transaction; the exchanges happen between turns, so requests keep being
 * answered during a sync, and whatever fails (a message, the power, the process) a repeat of the
 * step is harmless. RAM only: a restart starts a new engine from what the flash kept.
 */
export class SyncEngine {
  readonly #module: SyncHost;
  #queue: SyncRequest[] = [];
  #running: Promise<void> | undefined;
  #status = "idle {disconnected}";
  #connected = false;
  #requestedAt: number | undefined;
  #completedAt: number | undefined;
  #alert = false;
  #error: string | undefined;
  #signals: SignalRecord[] = [];
  #signalSeq = 0;
  /** Notefiles the hub said it deleted, deleted here since the session opened: every `close` confirms them. */
  #deletedForHub: readonly string[] = [];
  #held: { token: string; secure: boolean; files: string[] } | undefined;
  #disposed = false;
  #listeners = new Set<() => void>();
  readonly #steps: SessionStep[] = [];
  readonly #outcomes = new Set<(outcome: SessionOutcome) => void>();
  #policy: SyncPolicy | undefined;

  constructor(module: SyncHost) {
    this.#module = module;
  }

  /** Asks for a sync; it runs after the current turn, one session at a time. */
  request(request: SyncRequest): void {
    if (this.#disposed) return;
    if (request.why === "explicit") this.#requestedAt = this.#module.clock.now();
    this.#queue.push(request);
    this.#start();
  }

  /** The schedule that decides the mode in force and holds syncs in a penalty box. */
  governBy(policy: SyncPolicy): void {
    this.#policy = policy;
  }

  /** Called after each request: notefiles asked to sync now start a sync where the mode allows. */
  noticeSyncRequests(): void {
    const files = this.#module.syncRequests();
    if (files.size === 0 || this.#queue.some((r) => r.why === "note")) return;
    const mode = this.#mode();
    if (mode !== "periodic" && mode !== "continuous") return;
    if (this.#policy && !this.#policy.mayStart()) return;
    this.request({ why: "note", out: true });
  }

  status(): SyncStatus {
    return {
      status: this.#status,
      running: this.#running !== undefined,
      connected: this.#connected,
      ...(this.#requestedAt !== undefined ? { requestedAt: this.#requestedAt } : {}),
      ...(this.#completedAt !== undefined ? { completedAt: this.#completedAt } : {}),
      alert: this.#alert,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
    };
  }

  /** Signals received and not yet taken by `hub.signal`, oldest first. */
  get signalsWaiting(): number {
    return this.#signals.length;
  }

  takeSignal(): SignalRecord | undefined {
    return this.#signals.shift();
  }

  /** Resolves once no sync is running or asked for. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Adds work to every session (runs in the order added); returns a function that removes it. */
  addStep(step: SessionStep): () => void {
    this.#steps.push(step);
    return () => {
      const i = this.#steps.indexOf(step);
      if (i >= 0) this.#steps.splice(i, 1);
    };
  }

  /** Calls `listener` with the outcome of every session (schedules, penalty boxes, timelines). */
  onSession(listener: (outcome: SessionOutcome) => void): () => void {
    this.#outcomes.add(listener);
    return () => this.#outcomes.delete(listener);
  }

  /**
   * Runs `work` in the session held open now (continuous mode, `hub.set on`): the module is
   * online. Throws a `SyncFailure` when no session is open; the caller reports it.
   */
  async online<T>(work: (session: OpenSession) => Promise<T>): Promise<T> {
    const held = this.#held;
    if (!held) throw new SyncFailure("the module is not connected to its hub {hub-not-connected}");
    const traffic: Traffic = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
    try {
      return await work(this.#openSession(held.token, held.secure, "continuous", traffic));
    } finally {
      await this.#module
        .exclusive(() => addUsage(this.#module.notebox, this.#module.noteTime(), traffic, held.secure))
        .catch(() => undefined);
    }
  }

  /** True while a session is held open (the module is online). */
  get isOnline(): boolean {
    return this.#held !== undefined;
  }

  #openSession(token: string, secure: boolean, why: SessionTrigger, traffic: Traffic): OpenSession {
    return {
      why,
      secure,
      exchange: <R extends ProtocolReply>(request: { readonly type: string } & JsonObject) =>
        this.#exchange<R>({ ...request, v: PROTOCOL_VERSION, token } as ProtocolRequest, traffic),
    };
  }

  /** Calls `listener` when a sync ends (for the harness's timeline). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  dispose(): void {
    this.#disposed = true;
    this.#queue = [];
    this.#held = undefined;
  }

  #mode(): SyncMode {
    return this.#policy?.mode() ?? effectiveMode(hubSettings(this.#module), this.#module.voltage.now().usb);
  }

  /**
   * Ends the session held open (continuous mode's `duration` is over, or a temporary continuous
   * session ends) and, with `reopen`, opens a new one.
   */
  async endHeld(why: string, reopen: boolean): Promise<void> {
    const held = this.#held;
    if (held) {
      this.#held = undefined;
      this.#connected = this.#running !== undefined;
      if (this.#status.includes("{connected}")) this.#status = "completed {sync-end}";
      await this.#module.hubLink
        .exchange({ v: PROTOCOL_VERSION, type: "close", token: held.token, why, ...this.#confirmDeleted() })
        .catch(() => undefined);
    }
    if (reopen && !this.#disposed) this.request({ why: "continuous" });
  }

  #start(): void {
    if (this.#running) return;
    const run = (async () => {
      // Let the request that asked finish its turn first.
      await Promise.resolve();
      while (this.#queue.length > 0 && !this.#disposed) {
        const batch = this.#queue.splice(0);
        const why = batch.find((r) => r.why === "explicit")?.why ?? batch[0]!.why;
        const wantsIn = batch.some((r) => !r.out || r.in);
        const wantsOut = batch.some((r) => !r.in || r.out);
        await this.#session(why, wantsIn, wantsOut);
      }
    })();
    this.#running = run;
    void run.finally(() => {
      if (this.#running === run) this.#running = undefined;
      for (const listener of [...this.#listeners]) listener();
    });
  }

  // --- one session -------------------------------------------------------------------------

  async #session(why: SessionTrigger, pullAll: boolean, push: boolean): Promise<void> {
    const module = this.#module;
    const started = module.clock.now();
    let ok = false;
    let linkFailure = false;
    let connectFailure: ConnectFailure | undefined;
    const traffic: Traffic = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
    const secure = module.hubLink.secure ?? true;
    let token: string | undefined;
    const exchange = <R extends ProtocolReply>(request: ProtocolRequest) =>
      this.#exchange<R>(request, traffic);
    const held = this.#held;
    try {
      const radio = module.radio.state();
      if (!radio.registered) {
        connectFailure = "registration";
        throw new SyncFailure("no network {network}");
      }
      if (!canReachHub(radio)) {
        connectFailure = "hub";
        throw new SyncFailure("can't open session to notehub {network}");
      }
      this.#status = "starting communications {sync-begin}";
      this.#connected = true;
      let files: readonly string[];
      let signals: number;
      if (held) {
        // A session held open (continuous): no new session, just the changes.
        token = held.token;
        files = held.files.splice(0);
        signals = 0;
      } else {
        const opened = await this.#open(why, traffic).catch((error: unknown) => {
          // The hub did not answer the connection (a refusal is no connect failure).
          if (error instanceof HubLinkError) connectFailure = "hub";
          throw error;
        });
        token = opened.token;
        files = opened.files;
        signals = opened.signals;
      }
      await this.#transfer(token, secure, push, pullAll ? files : [], traffic);
      const session = this.#openSession(token, secure, why, traffic);
      for (const step of [...this.#steps]) await step.run(session);
      if (signals > 0) {
        const reply = await exchange<SignalsReply>({
          v: PROTOCOL_VERSION,
          type: "signals",
          token,
          after: this.#signalSeq,
        });
        this.#receiveSignals(reply.signals);
      }
      if (!held && this.#mode() === "continuous" && !this.#disposed) {
        // Continuous mode: the session stays open for signals and the hub's changes.
        this.#holdOpen(token, secure);
      } else if (!held) {
        await exchange({
          v: PROTOCOL_VERSION,
          type: "close",
          token,
          why: "sync complete",
          usage: traffic,
          ...this.#confirmDeleted(),
        });
      }
      token = undefined;
      this.#completedAt = module.clock.now();
      this.#alert = false;
      this.#error = undefined;
      this.#status = this.#held ? "connected (session open) {connected}" : "completed {sync-end}";
      await module.exclusive(() => {
        if (push) module.takeSyncRequests();
        setSyncState(module.notebox, { completed: module.noteTime(), ever: true });
        addUsage(module.notebox, module.noteTime(), traffic, secure);
      });
      ok = true;
    } catch (error) {
      linkFailure =
        error instanceof HubLinkError ||
        (error instanceof SyncFailure && error.message.includes("{network}"));
      this.#fail(error);
      if (held) this.#held = undefined;
      if (token) {
        // Tell the hub the session is over if it can still hear it; the token expires anyway.
        await module.hubLink
          .exchange({
            v: PROTOCOL_VERSION,
            type: "close",
            token,
            why: "sync error",
            ...this.#confirmDeleted(),
          })
          .catch(() => undefined);
      }
    } finally {
      this.#connected = this.#held !== undefined;
      if (!this.#disposed) {
        const outcome: SessionOutcome = {
          why,
          started,
          ended: module.clock.now(),
          ok,
          ...(ok ? {} : { error: this.#error ?? "sync failed" }),
          ...(linkFailure ? { linkFailure } : {}),
          ...(connectFailure ? { connectFailure } : {}),
          traffic,
          held: this.#held !== undefined,
        };
        for (const listener of [...this.#outcomes]) listener(outcome);
      }
    }
  }

  async #exchange<R extends ProtocolReply>(request: ProtocolRequest, traffic: Traffic): Promise<R> {
    const { reply, sent, received } = await this.#module.hubLink.exchange(request);
    traffic.bytes_sent += sent;
    traffic.bytes_received += received;
    let read: ProtocolReply;
    try {
      // Nothing of a reply is acted on before all of it reads as its type says.
      read = readReply(request, reply);
    } catch (error) {
      if (error instanceof ReplyError) throw new SyncFailure(`${error.message} {sync-error}`);
      throw error;
    }
    if (typeof read.err === "string") throw new SyncFailure(read.err);
    return read as R;
  }

  /** hello and open: the module proves who it is; the hub says what waits for it. */
  async #open(why: SessionTrigger, traffic: Traffic): Promise<OpenReply> {
    const module = this.#module;
    const start = await module.exclusive(() => this.#sessionStart());
    const hello = await this.#exchange<HelloReply>(
      { v: PROTOCOL_VERSION, type: "hello", device: start.device, product: start.product },
      traffic,
    );
    const signature = await module.crypto.sign(
      decodeBase64(start.privateKey)!,
      new TextEncoder().encode(signedText(start.device, start.product, hello.challenge)),
    );
    const open = await this.#exchange<OpenReply>(
      {
        v: PROTOCOL_VERSION,
        type: "open",
        device: start.device,
        product: start.product,
        challenge: hello.challenge,
        signature: encodeBase64(signature),
        // Always: the hub does not say whether it holds the key (that would tell anyone which
        // devices it knows); it ignores the key once it holds one.
        key: publicKeyToPem(decodeBase64(start.publicKey)!),
        why,
        tracker: start.tracker,
        context: start.context,
      },
      traffic,
    );
    await module.exclusive(() => {
      this.#opened(open, start.trackerHub);
      if (start.context.triangulate) module.triangulationSent();
    });
    return open;
  }

  /** Sends the module's changes (`push`), then takes the hub's changes of `inbound` (`pull`, `ack`). */
  async #transfer(
    token: string,
    secure: boolean,
    push: boolean,
    inbound: readonly string[],
    traffic: Traffic,
  ): Promise<void> {
    const module = this.#module;
    if (push) {
      this.#status = "sending notefile changes {sync-get-local-changes}";
      for (const file of await module.exclusive(() => this.#outboundFiles(secure))) {
        for (;;) {
          const batch = await module.exclusive(() => this.#collect(file));
          if (!batch) break;
          await this.#exchange<PushReply>({ v: PROTOCOL_VERSION, type: "push", token, ...batch }, traffic);
          traffic.notes_sent += batch.notes.length;
          const more = await module.exclusive(() => this.#pushed(batch));
          if (!more) break;
        }
      }
    }
    if (inbound.length === 0) return;
    this.#status = "receiving notefile changes {sync-get-remote-changes}";
    for (const file of inbound) {
      const kind = notefileKind(file);
      if (!kind || kind.direction === "out" || kind.direction === "local") continue;
      if (kind.secure && !secure) continue;
      for (;;) {
        const batch = await this.#exchange<PullReply>(
          { v: PROTOCOL_VERSION, type: "pull", token, file },
          traffic,
        );
        traffic.notes_received += await module.exclusive(() => this.#merge(batch));
        await this.#exchange<AckReply>(
          { v: PROTOCOL_VERSION, type: "ack", token, file, after: batch.after, through: batch.through },
          traffic,
        );
        if (!batch.more) break;
      }
    }
  }

  /**
   * Continuous mode: the session stays open. The module waits on the hub for signals and for
   * its notefiles to change; with `hub.set sync:true` it takes those changes at once, else at its
   * next sync. Ends when the mode leaves continuous, the link fails or the module goes.
   */
  #holdOpen(token: string, secure: boolean): void {
    const held = { token, secure, files: [] as string[] };
    this.#held = held;
    void (async () => {
      const traffic: Traffic = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
      try {
        while (!this.#disposed && this.#held === held && this.#mode() === "continuous") {
          const reply = await this.#exchange<SignalsReply>(
            { v: PROTOCOL_VERSION, type: "signals", token, after: this.#signalSeq, wait: SIGNAL_WAIT_MS },
            traffic,
          );
          if (this.#disposed || this.#held !== held) return;
          this.#receiveSignals(reply.signals);
          for (const file of reply.files) if (!held.files.includes(file)) held.files.push(file);
          if (held.files.length > 0 && hubSettings(this.#module).sync)
            this.request({ why: "inbound", in: true });
        }
        if (this.#held === held && !this.#disposed) {
          this.#held = undefined;
          await this.#exchange(
            {
              v: PROTOCOL_VERSION,
              type: "close",
              token,
              why: "mode changed",
              usage: traffic,
              ...this.#confirmDeleted(),
            },
            traffic,
          );
        }
      } catch (error) {
        if (this.#held === held) this.#held = undefined;
        if (!this.#disposed) this.#fail(error);
      } finally {
        this.#connected = this.#held !== undefined;
        // The session is over: the schedule plans the next one.
        if (!this.#disposed) for (const listener of [...this.#listeners]) listener();
        if (!this.#disposed) {
          await this.#module
            .exclusive(() => addUsage(this.#module.notebox, this.#module.noteTime(), traffic, secure))
            .catch(() => undefined);
        }
      }
    })();
  }

  #fail(error: unknown): void {
    const module = this.#module;
    this.#alert = true;
    if (error instanceof SyncFailure) this.#error = error.message;
    else if (error instanceof HubLinkError) this.#error = `${error.message} {sync-error} {${error.failure}}`;
    else {
      // The module lost power or restarted mid-sync: this engine is gone with its RAM.
      if (this.#disposed) return;
      module.log.error("sync failed", { error: String((error as Error)?.stack ?? error) });
      this.#error = `sync failed: ${String((error as Error)?.message ?? error)}`;
    }
    this.#status = `${this.#error}${this.#error.includes("{sync-error}") ? "" : " {sync-error}"}`;
  }

  /** The session's opening data, read in one turn (and the key pair made if missing). */
  #sessionStart() {
    const module = this.#module;
    const settings = hubSettings(module);
    const product = settings.product ?? module.defaultProduct;
    if (!product) throw new SyncFailure("no ProductUID is set (hub.set product) {no-product}");
    const identity = module.identity();
    if (!identity.key) throw new SyncFailure("the module has no key pair {auth}");
    const state = syncState(module.notebox);
    const hubName = settings.host ?? "";
    const tracker = state.hub === hubName ? (state.tracker ?? "") : "";
    const voltage = module.voltage.now();
    const radio = module.radio.state();
    const report = module.locationReport();
    const defaults = new Environment(module.notebox).defaults();
    const context: {
      -readonly [K in keyof SessionContext]: SessionContext[K];
    } = {
      firmware: module.firmware(),
      sku: module.variant.sku,
      voltage: voltage.volts,
      usb: voltage.usb,
      radio: sessionRadio(radio),
      continuous: this.#mode() === "continuous",
    };
    const energy = module.energyFields?.();
    if (energy) context.energy = energy;
    if (settings.sn) context.sn = settings.sn;
    if (settings.version !== undefined) context.host = settings.version;
    if (report.fix) context.where = { lat: report.fix.lat, lon: report.fix.lon, time: report.fix.time };
    if (report.towers[0]) context.tower = towerRecord(report.towers[0]);
    if (report.triangulation) {
      const t = report.triangulation;
      context.triangulate = {
        mode: t.mode,
        towers: t.towers.map(towerRecord),
        wifi: t.wifi.map((ap) => ({ ssid: ap.ssid, bssid: ap.bssid, rssi: ap.rssi, channel: ap.channel })),
        time: t.wifiTime,
      };
    }
    if (defaults.length > 0 && !module.variant.lora) {
      context.env_defaults = Object.fromEntries(defaults.map((d) => [d.name, d.text]));
    }
    return {
      device: identity.device,
      product,
      privateKey: identity.key.private,
      publicKey: identity.key.public,
      tracker,
      trackerHub: hubName,
      context: context as SessionContext,
    };
  }

  /** Applies what the hub said when the session opened: time, place, environment, trackers. */
  #opened(open: OpenReply, hubName: string): void {
    const module = this.#module;
    const box = module.notebox;
    module.setTime(Math.floor(open.time / 1000));
    if (open.where) {
      const place: TimeZone = {
        zone: open.where.zone ?? "UTC,Unknown",
        ...(open.where.minutes !== undefined ? { minutes: open.where.minutes } : {}),
        ...(open.where.area ? { area: open.where.area } : {}),
        ...(open.where.country ? { country: open.where.country } : {}),
        ...(open.where.lat !== undefined ? { lat: open.where.lat } : {}),
        ...(open.where.lon !== undefined ? { lon: open.where.lon } : {}),
      };
      box.setConfig(CARD_KEYS.timeZone, place);
    }
    this.#applyEnvironment(open);
    const state = syncState(box);
    if (open.reset || state.tracker !== open.tracker || state.hub !== hubName) {
      // A new tracker session: everything is sent again both ways.
      for (const file of box.files()) {
        box.clearTrackerPosition(SYNC_TRACKER, file.name);
        if (file.meta["pulled"] !== undefined) {
          const { ctr: _ctr, pulled: _pulled, ...rest } = file.meta;
          box.setFileMeta(file, rest);
        }
      }
      setSyncState(box, { tracker: open.tracker, hub: hubName });
    }
    if (box.config(CARD_KEYS.deprovision)) box.setConfig(CARD_KEYS.deprovision, undefined);
    this.#deletedForHub = open.deleted ? this.#deleteNotefiles(open.deleted) : [];
  }

  /** What a `close` adds: the deletions made for the hub in this session, when there were any. */
  #confirmDeleted(): { deleted?: readonly string[] } {
    return this.#deletedForHub.length > 0 ? { deleted: this.#deletedForHub } : {};
  }

  /**
   * The hub deleted these notefiles (Delete Notefiles): what the module holds of the hub's goes
   * with them (an inbound queue whole; of a database, every note the hub has or sent), while the
   * module's own changes the hub has not seen stay, to be sent, and create the notefile on the
   * hub again. Runs again harmlessly when a confirmation was lost. Returns the names to confirm.
   */
  #deleteNotefiles(names: readonly string[]): readonly string[] {
    const box = this.#module.notebox;
    for (const name of names) {
      const file = box.file(name);
      if (!file || file.kind.direction === "out" || file.kind.direction === "local") continue;
      const synced = box.trackerPosition(SYNC_TRACKER, name) ?? 0;
      const hubs = [...file.notes.values()].filter((n) => n.change <= synced || arrivedUnchanged(n));
      if (file.kind.direction === "in" || hubs.length === file.notes.size) {
        box.deleteFile(name);
        continue;
      }
      for (const note of hubs) box.removeNote(file, note.id);
      const { ctr: _ctr, pulled: _pulled, ...meta } = file.meta;
      box.setFileMeta(file, meta);
    }
    return [...names];
  }

  #applyEnvironment(open: OpenReply): void {
    const module = this.#module;
    const box = module.notebox;
    const previous = box.config<HubEnvironment>(ENV_KEYS.hub);
    const next: HubEnvironment = {
      device: { ...open.env.device },
      fleet: { ...open.env.fleet },
      project: { ...open.env.project },
      time: previous?.time ?? 0,
    };
    const same =
      previous !== undefined &&
      JSON.stringify([previous.device ?? {}, previous.fleet ?? {}, previous.project ?? {}]) ===
        JSON.stringify([next.device, next.fleet, next.project]);
    if (same) return;
    const empty = (h: HubEnvironment | undefined) =>
      !h || [h.device, h.fleet, h.project].every((s) => !s || Object.keys(s).length === 0);
    if (empty(previous) && empty(next)) return;
    box.setConfig(ENV_KEYS.hub, { ...next, time: Math.max(open.env.modified, module.noteTime()) });
    module.attn.trigger("env");
  }

  /** Notefiles with changes to send: outbound queues and databases (secure ones only over TLS). */
  #outboundFiles(secure: boolean): string[] {
    const box = this.#module.notebox;
    const out: string[] = [];
    for (const file of box.files()) {
      const kind = file.kind;
      if (kind.direction === "local" || kind.direction === "in") continue;
      if (kind.secure && !secure) continue;
      if (file.meta.ctr > (box.trackerPosition(SYNC_TRACKER, file.name) ?? 0)) out.push(file.name);
    }
    return out.sort(byQueuesFirst);
  }

  /** The next batch of a notefile's changes for the hub, or undefined when none is left. */
  #collect(name: string): ChangeBatch | undefined {
    const box = this.#module.notebox;
    const file = box.file(name);
    if (!file) return undefined;
    const after = box.trackerPosition(SYNC_TRACKER, name) ?? 0;
    if (file.meta.ctr <= after) return undefined;
    const batch = collectChanges(file, after, BATCH_LIMITS.notes, true);
    const notes: NoteRecord[] = [];
    let bytes = 0;
    let through = batch.position;
    // Sizes are JSON characters, not bytes: close enough to keep a batch under its limit. Each
    // note counts its size's upper bound (no JSON written) until the batch might reach the limit;
    // from then on, exact sizes.
    let exact = false;
    for (const note of batch.notes) {
      const record = toRecord(note);
      let size = jsonLengthBound(record);
      if (!exact && bytes + size > BATCH_LIMITS.bytes) {
        exact = true;
        bytes = notes.reduce((sum, sent) => sum + JSON.stringify(sent).length, 0);
      }
      if (exact) size = JSON.stringify(record).length;
      if (notes.length > 0 && bytes + size > BATCH_LIMITS.bytes) {
        through = note.change - 1;
        break;
      }
      if (arrivedUnchanged(note)) continue; // no echo of the hub's own change
      notes.push(record);
      bytes += size;
    }
    return { file: name, after, through, notes };
  }

  /** The hub acknowledged a batch: the tracker moves, sent queue notes go, tombstones may go. */
  #pushed(batch: ChangeBatch): boolean {
    const box = this.#module.notebox;
    const file = box.file(batch.file);
    if (!file) return false;
    if ((box.trackerPosition(SYNC_TRACKER, batch.file) ?? 0) !== batch.after) {
      box.clearTrackerPosition(SYNC_TRACKER, batch.file);
      return true;
    }
    box.setTrackerPosition(SYNC_TRACKER, batch.file, batch.through);
    if (file.kind.queue) {
      box.removeNotesThrough(file, batch.through);
    } else {
      purgeTombstones(box, file);
    }
    return file.meta.ctr > batch.through;
  }

  /** Merges a batch of the hub's changes; returns how many notes it received. */
  #merge(batch: PullReply): number {
    const module = this.#module;
    const box = module.notebox;
    const kind = notefileKind(batch.file);
    if (!kind) return 0;
    const existing = box.file(batch.file);
    const pulled = (existing?.meta["pulled"] as number | undefined) ?? 0;
    const fresh = batch.notes.filter((n) => n.change > pulled);
    if (fresh.length === 0 && batch.through <= pulled) return 0;
    const file: Notefile = existing ?? box.ensureFile(batch.file);
    for (const record of fresh) {
      if (kind.queue) {
        if (record.deleted) continue;
        const note = fromRecord(record, true);
        box.appendToQueue(batch.file, {
          ...(note.body !== undefined ? { body: note.body } : {}),
          ...(note.payload !== undefined ? { payload: note.payload } : {}),
          time: note.time,
        });
        continue;
      }
      const stored = file.notes.get(record.id);
      const outcome = mergeNote(stored ? toRecord(stored) : undefined, record);
      if (!outcome.changed) continue;
      const unchanged = outcome.note === record;
      box.putNote(file, { id: record.id, ...fromRecord(outcome.note, unchanged) });
    }
    const { ctr: _ctr, ...meta } = file.meta;
    box.setFileMeta(file, { ...meta, pulled: Math.max(pulled, batch.through) });
    module.attn.noticeFileChanges(box);
    return fresh.length;
  }

  #receiveSignals(signals: readonly SignalRecord[]): void {
    for (const signal of signals) {
      if (signal.seq <= this.#signalSeq) continue;
      this.#signalSeq = signal.seq;
      this.#signals.push(signal);
      this.#module.attn.trigger("signal");
    }
  }

  /** The hub's name a held session belongs to (for tests). */
  get held(): boolean {
    return this.#held !== undefined;
  }
}

/** Queues before databases, then by name: the hub sees events in the order they happened. */
/** A tower of the world as a session reports it. */
function towerRecord(t: CellTower): TowerRecord {
  return { mcc: t.mcc, mnc: t.mnc, lac: t.lac, cid: t.cid, rat: t.rat, rssi: t.rssi, lat: t.lat, lon: t.lon };
}

function byQueuesFirst(a: string, b: string): number {
  const qa = notefileKind(a)?.queue ? 0 : 1;
  const qb = notefileKind(b)?.queue ? 0 : 1;
  return qa - qb || (a < b ? -1 : a > b ? 1 : 0);
}
