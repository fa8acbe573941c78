import { decodeBase64 } from "../../core/base64.js";
import { utf8Length } from "../../core/bytes.js";
import type { Clock } from "../../core/Clock.js";
import type { Crypto } from "../../core/Crypto.js";
import type { JsonObject } from "../../core/json.js";
import type { NotefileKind } from "../../core/NotefileKind.js";
import { kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { notefileKind } from "../../core/NotefileKind.js";
import { deviceEventUid, eventRequest } from "../../protocol/eventUid.js";
import { mergeNote } from "../../protocol/merge.js";
import {
  signedText,
  SYNC_ERRORS,
  type AckReply,
  type AckRequest,
  BATCH_LIMITS,
  type CloseRequest,
  type DfuMessage,
  type DeviceEnvironment,
  type HelloReply,
  type HelloRequest,
  type OpenReply,
  type OpenRequest,
  type ProtocolReply,
  type PullReply,
  type PullRequest,
  type PushReply,
  type PushRequest,
  type SessionUsage,
  type SignalsReply,
  type SignalsRequest,
  type WebRequestMessage,
} from "../../protocol/messages.js";
import type { NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";
import { sessionRadio } from "../../protocol/sessionRadio.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { readDevicePublicKey } from "../devices/devicePublicKey.js";
import type { DeviceService } from "../devices/DeviceService.js";
import type { DfuService } from "../dfu/DfuService.js";
import type { EventService, NewEvent } from "../events/EventService.js";
import type { HubIds } from "../HubIds.js";
import { md5Hex } from "../md5.js";
import type { RoutingService } from "../routing/RoutingService.js";
import type { HubStore } from "../store/HubStore.js";
import { fromProtocolNote, toProtocolNote } from "../store/noteVersions.js";
import type { DeviceDetails, DeviceRecord, HealthLogRecord, LocationRecord } from "../store/records.js";
import { MAX_BATCH_NOTES, readMessage, type SyncRequest } from "../../protocol/readMessage.js";
import type { SyncNotifier } from "./SyncNotifier.js";
import { refusal, SyncRefusal } from "./SyncRefusal.js";
import { CHALLENGE_TEXT_LENGTH, SyncChallenges } from "./SyncChallenges.js";
import { DEFAULT_HELLO_LIMITS, HelloThrottle, type HelloLimits } from "./HelloThrottle.js";
import { packagedPlaceNames, type PlaceNameLookup } from "./placeNames.js";
import {
  eventBase,
  eventBaseOf,
  type EventBase,
  located,
  noteEvent,
  sessionDocument,
  sessionPeriod,
  transportOf,
  triangulate,
} from "./syncDocuments.js";
import { SyncSessions, type SyncSession } from "./SyncSessions.js";
import { devicePlace, packagedZoneLookup, type ZoneLookup } from "./timeZone.js";
import { WebProxy } from "./WebProxy.js";

/** How a message reached the hub: over TLS (HTTPS, or in process) or not. */
export interface SyncTransport {
  readonly secure: boolean;
  /** The request's size on the wire, when the transport knows it (else its JSON is measured). */
  readonly bytes?: number;
  /** The address the message came from (HTTP), for the hello limits; none in process. */
  readonly source?: string;
}

/**
 * Whom the hub lets in: `tofu` (trust on first use, the local default) stores the key a device
 * sends at its first session; `pinned` lets in only devices whose key was set through the API
 * beforehand (`PUT …/devices/{deviceUID}/public-key`, or `public_key` at provisioning).
 */
export type DeviceAuth = "tofu" | "pinned";

export interface SyncServiceOptions {
  store: HubStore;
  clock: Clock;
  ids: HubIds;
  events: EventService;
  /** Answers the firmware messages of sessions (`firmware`, `read`, `dfu`). */
  dfu: DfuService;
  /** Makes the module's web requests through the project's proxy routes (`web`). */
  routing: Pick<RoutingService, "webRequest">;
  devices: DeviceService;
  notifier: SyncNotifier;
  /** Checks the modules' signatures (any valid Ed25519 signature passes, whoever made it). */
  crypto: Crypto;
  /**
   * Place to IANA time zone (the open reply's `where`); by default the optional zone package when
   * it is installed (`timeZone.ts`), else UTC everywhere.
   */
  zoneLookup?: ZoneLookup | false;
  /** Place to town name and country (default: the packaged gazetteer, read at the first place). */
  placeNames?: PlaceNameLookup | false;
  /** Told of a fault while handling a message (the module is answered `{hub-error}`). */
  onFault?: (error: unknown, type: string) => void;
  /** Whom the hub lets in (default `tofu`: a device's first session stores its key). */
  deviceAuth?: DeviceAuth;
  /** Hellos answered per device and source address (default `DEFAULT_HELLO_LIMITS`); false: no limit. */
  helloLimits?: HelloLimits | false;
}

/** Session tokens expire after this much hub time without a message. */
export const SESSION_IDLE_MS = 15 * 60_000;
/** The longest a `signals` request waits (continuous mode). */
export const MAX_SIGNAL_WAIT_MS = 60_000;
/** How long a `hello` challenge may be answered by `open`. */
export const CHALLENGE_MS = 2 * 60_000;
/** Batches the hub sends stay under this much JSON (at least one note). */
/** Signals one `signals` reply carries at most. */
const MAX_SIGNALS = 100;
const SWEEP_EVERY_MS = 60_000;
/** System notefiles whose notes also go to the device's health log. */
const HEALTH_FILES = new Set(["_health.qo", "_health_host.qo"]);
/** The notefile of the hub's own session events. */
const SESSION_FILE = "_session.qo";

const encoder = new TextEncoder();

/** Bytes of a message's JSON (what crossed the wire). */
function jsonBytes(message: unknown): number {
  try {
    const text = JSON.stringify(message);
    return text === undefined ? 0 : utf8Length(text);
  } catch {
    return 0;
  }
}

const refuse = (code: string, text: string): SyncRefusal => new SyncRefusal(code, text);
const expired = (): SyncRefusal =>
  refuse(SYNC_ERRORS.session, "the session token is unknown or expired: open a new session");

/** A notefile the hub sends down to the module (inbound queues, databases; secure ones over TLS only). */
function movesDown(name: string, secure: boolean): boolean {
  const kind = notefileKind(name);
  return (
    kind !== undefined && kind.direction !== "out" && kind.direction !== "local" && (secure || !kind.secure)
  );
}

/**
 * The hub's end of the sync protocol (docs/sync-protocol.md), without HTTP: `handle` takes one
 * message as it arrived (anything JSON can be) and answers the protocol's reply, a refusal
 * included; it never throws. Each message is one store transaction (a `signals` request waits
 * for signals before its transaction, never inside it). Sessions live in memory and expire after
 * 15 minutes of hub time without a message; a restarted hub has none, and modules open anew.
 */
export class SyncService {
  readonly #store: HubStore;
  readonly #clock: Clock;
  readonly #ids: HubIds;
  readonly #events: EventService;
  readonly #dfu: DfuService;
  readonly #web: WebProxy;
  readonly #devices: DeviceService;
  readonly #notifier: SyncNotifier;
  readonly #crypto: Crypto;
  readonly #onFault: (error: unknown, type: string) => void;
  readonly #sessions = new SyncSessions(SESSION_IDLE_MS);
  /** The `hello` challenges (sealed, not stored: any number may be outstanding per device). */
  readonly #challenges = new SyncChallenges(CHALLENGE_MS);
  readonly #throttle: HelloThrottle | undefined;
  readonly #deviceAuth: DeviceAuth;
  readonly #waits = new Set<() => void>();
  #zoneLookup: Promise<ZoneLookup | undefined> | undefined;
  #zoneOf: ZoneLookup = () => undefined;
  #placeNames: Promise<PlaceNameLookup | undefined> | undefined;
  #nameOf: PlaceNameLookup = () => undefined;
  #lastSweep = Number.NEGATIVE_INFINITY;
  /** Set once the devices a previous run of the hub left connected were marked not connected. */
  #started: Promise<unknown> | undefined;

  constructor(options: SyncServiceOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#events = options.events;
    this.#dfu = options.dfu;
    this.#web = new WebProxy(options.routing, options.clock);
    this.#devices = options.devices;
    this.#notifier = options.notifier;
    this.#crypto = options.crypto;
    this.#onFault = options.onFault ?? (() => undefined);
    this.#deviceAuth = options.deviceAuth ?? "tofu";
    const limits = options.helloLimits ?? DEFAULT_HELLO_LIMITS;
    this.#throttle = limits ? new HelloThrottle(limits) : undefined;
    if (options.zoneLookup === false) this.#zoneLookup = Promise.resolve(undefined);
    else if (options.zoneLookup) this.#zoneLookup = Promise.resolve(options.zoneLookup);
    if (options.placeNames === false) this.#placeNames = Promise.resolve(undefined);
    else if (options.placeNames) this.#placeNames = Promise.resolve(options.placeNames);
  }

  /** Answers one message of the protocol. */
  async handle(message: unknown, transport: SyncTransport): Promise<ProtocolReply> {
    let request: SyncRequest;
    try {
      request = readMessage(message);
    } catch (error) {
      if (error instanceof SyncRefusal) return error.reply();
      this.#onFault(error, "?");
      return refusal(SYNC_ERRORS.hub, "the hub failed to read the message");
    }
    const bytes = transport.bytes ?? jsonBytes(message);
    try {
      // A starting hub holds no sessions: no device is connected (whatever the last run left).
      this.#started ??= this.#store.devices.disconnectAll().catch((error: unknown) => {
        this.#started = undefined;
        throw error;
      });
      await this.#started;
      await this.#sweep();
      // Notes with a place are named in the transaction: the gazetteer is read before it, once.
      if (request.type === "push" && request.notes.some((n) => n.where)) await this.#names();
      switch (request.type) {
        case "hello":
          return await this.#hello(request, bytes, transport.source);
        case "open":
          return await this.#open(request, transport, bytes);
        case "signals":
          return await this.#signals(request, bytes);
        case "firmware":
        case "read":
        case "dfu":
          return await this.#firmwareMessage(request, bytes);
        case "web":
          return await this.#webMessage(request, bytes);
        default:
          return await this.#store.transaction(() => this.#inSession(request, transport, bytes));
      }
    } catch (error) {
      if (error instanceof SyncRefusal) return error.reply();
      this.#onFault(error, request.type);
      return refusal(SYNC_ERRORS.hub, `the hub failed to handle ${request.type}; try again`);
    }
  }

  /** Ends every `signals` wait now (the hub is closing); each is answered as if its wait were over. */
  releaseWaits(): void {
    for (const release of [...this.#waits]) release();
  }

  /**
   * The device's key was pinned anew: its open sessions (opened with the key it had) end now, and
   * the module proves the new key at its next `open`.
   */
  async keyChanged(deviceUid: string): Promise<void> {
    const sessions = this.#sessions.ofDevice(deviceUid);
    if (sessions.length === 0) return;
    await this.#store.transaction(async () => {
      for (const session of sessions) await this.#end(session, "device key changed", this.#clock.now());
    });
  }

  /** Sessions open now. */
  get openSessions(): number {
    return this.#sessions.size;
  }

  // --- hello and open --------------------------------------------------------------------------

  /**
   * Anyone may say hello: the reply tells nothing about the device (whether the hub knows it), and
   * the hellos answered are limited per device and per source address.
   */
  async #hello(request: HelloRequest, bytes: number, source: string | undefined): Promise<ProtocolReply> {
    const now = this.#clock.now();
    const over = source === undefined ? undefined : this.#throttle?.take(request.device, source, now);
    if (over) {
      throw refuse(
        SYNC_ERRORS.rateLimited,
        `too many hellos ${over.limit}: say hello again in ${Math.ceil(over.wait / 1000)} s`,
      );
    }
    const product = await this.#store.projects.getProduct(request.product);
    if (!product) throw this.#noProduct(request.product);
    const reply = { v: PROTOCOL_VERSION, time: now, challenge: "" };
    // Every challenge is as long: the reply's size is known before its challenge is made.
    const received = jsonBytes({ ...reply, challenge: "A".repeat(CHALLENGE_TEXT_LENGTH) });
    reply.challenge = this.#challenges.issue(request.device, request.product, now, this.#ids.bytes(32), {
      sent: bytes,
      received,
    });
    return reply satisfies HelloReply;
  }

  #noProduct(product: string): SyncRefusal {
    return refuse(SYNC_ERRORS.product, `no project of this hub owns the product ${product}`);
  }

  async #open(request: OpenRequest, transport: SyncTransport, bytes: number): Promise<ProtocolReply> {
    const now = this.#clock.now();
    const pending = this.#challenges.check(request.challenge, request.device, request.product, now);
    if (!pending) {
      throw refuse(SYNC_ERRORS.auth, "the challenge is unknown, used or expired: say hello again");
    }
    const zones = await this.#zones();
    const { context: said } = request;
    if (said.where || said.tower || said.triangulate) await this.#names();
    return this.#store.transaction(async () => {
      const store = this.#store;
      const { context } = request;
      const product = await store.projects.getProduct(request.product);
      if (!product) return this.#noProduct(request.product).reply();
      let device = await store.devices.getDevice(request.device);
      if (device && device.projectUid !== product.projectUid) {
        return refusal(
          SYNC_ERRORS.product,
          `the device belongs to another project than the one owning ${request.product}`,
        );
      }

      // Identity: the stored (pinned) key, or, trusted on first use, the one the module sends.
      const storedKey = device?.publicKey ?? null;
      const pinned = this.#deviceAuth === "pinned";
      if (pinned && storedKey === null) return this.#notPinned(request.device, product.projectUid);
      const pem = storedKey ?? request.key;
      if (pem === undefined) {
        return refusal(SYNC_ERRORS.auth, "the hub holds no key for the device: send its public key");
      }
      const read = readDevicePublicKey(pem);
      if ("fault" in read) return refusal(SYNC_ERRORS.auth, `the public key ${read.fault}`);
      const signature = decodeBase64(request.signature);
      const text = encoder.encode(signedText(request.device, request.product, request.challenge));
      if (!signature || !(await this.#crypto.verify(read.key, text, signature))) {
        // Pinned: one answer whether the device has no pinned key or another one.
        if (pinned) return this.#notPinned(request.device, product.projectUid);
        return refusal(SYNC_ERRORS.auth, "the signature does not prove possession of the device's key");
      }
      // Spent once proven (transactions run one at a time: a second open with it is refused).
      if (!this.#challenges.check(request.challenge, request.device, request.product, now)) {
        return refusal(SYNC_ERRORS.auth, "the challenge is unknown, used or expired: say hello again");
      }
      this.#challenges.spend(request.challenge, pending.expires);
      if (device?.disabled) return this.#disabled();

      // Provisioning: an unknown device joins the product's project with the product's defaults.
      device = await this.#devices.register({
        deviceUid: request.device,
        projectUid: product.projectUid,
        productUid: product.uid,
        sku: context.sku,
        firmwareModule: JSON.stringify(context.firmware),
        serialNumber: context.sn,
      });
      if (storedKey === null) {
        device = await store.devices.putDevice({
          uid: device.uid,
          projectUid: device.projectUid,
          productUid: device.productUid,
          publicKey: read.pem,
        });
      }
      if (device.disabled) return this.#disabled();

      // Tracker sessions: a module that does not hold the hub's starts again from nothing.
      const held = await store.devices.trackerSession(device.uid);
      let tracker = held ?? "";
      const reset = held === undefined || request.tracker !== held;
      if (reset) {
        await store.notefiles.clearTracker(device.uid, SYNC_TRACKER);
        tracker = this.#ids.uuid();
        await store.devices.setTrackerSession(device.uid, tracker);
      }

      if (context.env_defaults) await this.#envDefaults(device.uid, context.env_defaults, now);
      for (const earlier of this.#sessions.ofDevice(device.uid)) {
        await this.#end(earlier, "superseded by a new session", now);
      }

      // The device record takes what the module reports.
      const details: DeviceDetails = {};
      const nowSec = Math.floor(now / 1000);
      if (context.where) {
        details.gpsLocation = this.#located(context.where.lat, context.where.lon, context.where.time);
      }
      if (context.tower) {
        const t = context.tower;
        details.towerLocation = this.#located(t.lat, t.lon, nowSec);
        details.towerInfo = { mcc: t.mcc, mnc: t.mnc, lac: t.lac, cell_id: t.cid };
      }
      const tri = context.triangulate && triangulate(context.triangulate);
      if (tri) details.triangulatedLocation = this.#located(tri.lat, tri.lon, nowSec);
      const host = context.host;
      device = await store.devices.putDevice({
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        lastActivity: now,
        firmwareHost: host === undefined ? undefined : typeof host === "string" ? host : JSON.stringify(host),
        voltage: context.voltage,
        temperature: context.temp,
        connected: context.continuous === true,
        ...(Object.keys(details).length > 0 ? { details } : {}),
      });

      const session: SyncSession = {
        token: this.#ids.uuid(),
        uid: this.#ids.uuid(),
        deviceUid: device.uid,
        projectUid: device.projectUid,
        trackerSession: tracker,
        secure: transport.secure,
        continuous: context.continuous === true,
        transport: transportOf(context.radio),
        beganMs: now,
        lastSeenMs: now,
        recordedMs: Number.NEGATIVE_INFINITY,
        firstSync: reset,
        doc: {},
        traffic: { bytesSent: pending.sent, bytesReceived: pending.received, notesSent: 0, notesReceived: 0 },
        events: 0,
        toldDeleted: new Set(),
      };
      Object.assign(session.doc, sessionDocument(device, session, context, request.why));
      store.afterCommit(() => this.#sessions.add(session));

      const begin: JsonObject = {
        ...eventBase(device, session),
        req: "session.begin",
        file: SESSION_FILE,
        when: Math.floor(now / 1000),
        body: { why: request.why, ...(context.usage ? { usage: context.usage } : {}) },
        sku: context.sku,
        voltage: context.voltage,
        ...sessionRadio(context.radio),
      };
      if (context.temp !== undefined) begin.temp = context.temp;
      if (context.ordering_code) begin.ordering_code = context.ordering_code;
      if (details.gpsLocation) located(begin, "where", details.gpsLocation);
      await this.#events.record({
        projectUid: device.projectUid,
        deviceUid: device.uid,
        file: SESSION_FILE,
        sessionUid: session.uid,
        data: begin,
      });

      const gps = device.details.gpsLocation;
      const deleted = await this.#deletedFiles(device.uid, session.secure);
      for (const name of deleted) session.toldDeleted.add(name);
      const reply: OpenReply = {
        v: PROTOCOL_VERSION,
        session: session.uid,
        token: session.token,
        time: now,
        tracker,
        reset,
        ...(gps ? { where: devicePlace(gps.latitude, gps.longitude, new Date(now), zones) } : {}),
        env: await this.#environment(device),
        files: await this.#pendingFiles(device.uid, session.secure),
        ...(deleted.length > 0 ? { deleted } : {}),
        signals: (await store.devices.pendingSignals(device.uid)).length,
      };
      await this.#account(session, bytes, reply);
      return reply;
    });
  }

  /** The refusal of a device without a pinned key (or another key than its pinned one), pinned mode. */
  #notPinned(device: string, projectUid: string): ProtocolReply {
    return refusal(
      SYNC_ERRORS.auth,
      `the hub takes only pinned keys and ${device}'s pinned key did not sign this: pin it with PUT /v1/projects/${projectUid}/devices/${device}/public-key (cardsim module --print-key prints it)`,
    );
  }

  #disabled(): ProtocolReply {
    return refusal(SYNC_ERRORS.disabled, "the device is disabled: enable it in its project to sync");
  }

  /** The zone lookup, loaded once (outside any transaction: it may read the file system). */
  async #zones(): Promise<ZoneLookup | undefined> {
    this.#zoneLookup ??= Promise.resolve(packagedZoneLookup());
    const lookup = await this.#zoneLookup;
    if (lookup) this.#zoneOf = lookup;
    return lookup;
  }

  /** The town-name lookup, loaded at the first place to name (outside any transaction). */
  async #names(): Promise<void> {
    this.#placeNames ??= packagedPlaceNames().catch(() => undefined);
    const lookup = await this.#placeNames;
    if (lookup) this.#nameOf = lookup;
  }

  /**
   * A place as the device record and the documents keep it: named, in its zone. A bound function,
   * handed to every note's event as it is.
   */
  readonly #located = (lat: number, lon: number, whenSec: number): LocationRecord => {
    const named = this.#nameOf(lat, lon);
    return {
      whenSec: Math.floor(whenSec),
      name: named?.name ?? "",
      country: named?.country ?? "",
      timezone: this.#zoneOf(lat, lon) ?? "",
      latitude: lat,
      longitude: lon,
    };
  };

  /** The module's `env.default` values replace what the hub held of them. */
  async #envDefaults(
    deviceUid: string,
    defaults: Readonly<Record<string, string>>,
    now: number,
  ): Promise<void> {
    const scope = { kind: "device_default", uid: deviceUid } as const;
    for (const old of await this.#store.env.get(scope)) {
      if (!(old.key in defaults)) await this.#store.env.delete(scope, old.key);
    }
    await this.#store.env.set(scope, { ...defaults }, now);
  }

  /** The device's environment: its own values, its fleets' (newest change wins), its project's. */
  async #environment(device: DeviceRecord): Promise<DeviceEnvironment> {
    const env = this.#store.env;
    const own = await env.get({ kind: "device", uid: device.uid });
    const project = await env.get({ kind: "project", uid: device.projectUid });
    const fleet = new Map<string, { value: string; modified: number }>();
    let modified = 0;
    for (const uid of device.fleetUids) {
      for (const v of await env.get({ kind: "fleet", uid })) {
        const held = fleet.get(v.key);
        if (!held || v.modified > held.modified) fleet.set(v.key, { value: v.value, modified: v.modified });
        modified = Math.max(modified, v.modified);
      }
    }
    for (const v of [...own, ...project]) modified = Math.max(modified, v.modified);
    const map = (vars: readonly { key: string; value: string }[]) =>
      Object.fromEntries(vars.map((v) => [v.key, v.value]));
    return {
      device: map(own),
      fleet: Object.fromEntries([...fleet].map(([key, v]) => [key, v.value])),
      project: map(project),
      modified: Math.floor(modified / 1000),
    };
  }

  /** Notefiles with changes for the device (hub to module: inbound queues and databases). */
  /** Notefiles deleted on the hub that the module is to delete too. */
  async #deletedFiles(deviceUid: string, secure: boolean): Promise<string[]> {
    return (await this.#store.notefiles.deletedNotefiles(deviceUid)).filter((name) =>
      movesDown(name, secure),
    );
  }

  async #pendingFiles(deviceUid: string, secure: boolean): Promise<string[]> {
    return (await this.#store.notefiles.summaries(deviceUid, SYNC_TRACKER))
      .filter((s) => s.changes > 0 && movesDown(s.fileId, secure))
      .map((s) => s.fileId);
  }

  // --- messages of an open session ---------------------------------------------------------------

  /**
   * The session of a token and its device, or the refusal to answer: the token is unknown or
   * expired, the device is gone, or it was disabled (which ends the session).
   */
  async #session(
    token: string,
  ): Promise<{ session: SyncSession; device: DeviceRecord } | { refused: ProtocolReply }> {
    const session = this.#sessions.get(token, this.#clock.now());
    if (!session) return { refused: expired().reply() };
    const device = await this.#store.devices.getDevice(session.deviceUid);
    if (!device || device.projectUid !== session.projectUid) {
      this.#sessions.remove(session);
      return { refused: expired().reply() };
    }
    if (device.disabled) {
      await this.#end(session, "device disabled", this.#clock.now());
      return { refused: this.#disabled() };
    }
    return { session, device };
  }

  async #inSession(
    request: PushRequest | PullRequest | AckRequest | CloseRequest,
    transport: SyncTransport,
    bytes: number,
  ): Promise<ProtocolReply> {
    const found = await this.#session(request.token);
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    switch (request.type) {
      case "push": {
        const reply = await this.#push(session, device, request, transport);
        await this.#account(session, bytes, reply);
        return reply;
      }
      case "pull": {
        const reply = await this.#pull(session, device, request, transport);
        await this.#account(session, bytes, reply);
        return reply;
      }
      case "ack": {
        const reply = await this.#ack(device, request, transport);
        await this.#account(session, bytes, reply);
        return reply;
      }
      case "close": {
        const reply: ProtocolReply = { v: PROTOCOL_VERSION };
        session.traffic.bytesSent += bytes;
        session.traffic.bytesReceived += jsonBytes(reply);
        session.lastSeenMs = this.#clock.now();
        // Only tombstones this session's open listed go: a close cannot drop any other.
        const confirmed = (request.deleted ?? []).filter((name) => session.toldDeleted.has(name));
        if (confirmed.length > 0) await this.#store.notefiles.forgetDeletedNotefiles(device.uid, confirmed);
        await this.#end(session, request.why, session.lastSeenMs, request.usage);
        return reply;
      }
    }
  }

  /** A notefile a message names, checked for the direction it moves in and the transport. */
  #notefile(name: string, transport: SyncTransport, direction: "up" | "down"): NotefileKind {
    const fault = notefileNameFault(name, { allowReserved: true });
    if (fault) throw refuse(SYNC_ERRORS.badRequest, `${name} is not a notefile name (${fault})`);
    const kind = kindOfGoodName(name);
    if (kind.direction === "local") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: .dbx notefiles never leave the module`);
    }
    if (direction === "up" && kind.direction === "in") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: inbound queues move from the hub to the module only`);
    }
    if (direction === "down" && kind.direction === "out") {
      throw refuse(SYNC_ERRORS.badRequest, `${name}: outbound queues move from the module to the hub only`);
    }
    if (kind.secure && !transport.secure) {
      throw refuse(SYNC_ERRORS.badRequest, `${name} moves only in sessions over TLS`);
    }
    return kind;
  }

  /**
   * A firmware message of an open session, answered by the DFU service (which takes its own
   * transactions: a `read` of a large image holds no write lock).
   */
  async #firmwareMessage(request: DfuMessage, bytes: number): Promise<ProtocolReply> {
    const found = await this.#store.transaction(() => this.#session(request.token));
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    const reply = await this.#dfu.handleSyncMessage(
      { deviceUid: device.uid, projectUid: device.projectUid },
      request,
    );
    await this.#account(session, bytes, reply);
    return reply;
  }

  /**
   * A web request of an open session: the session is checked in a transaction of its own, the
   * request (which waits on the network) is made outside any, then counted in the session.
   */
  async #webMessage(request: WebRequestMessage, bytes: number): Promise<ProtocolReply> {
    const found = await this.#store.transaction(() => this.#session(request.token));
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    let reply: ProtocolReply;
    try {
      reply = await this.#web.handle({ deviceUid: device.uid, projectUid: device.projectUid }, request);
    } catch (error) {
      if (!(error instanceof SyncRefusal)) throw error;
      reply = error.reply();
    }
    await this.#account(session, bytes, reply);
    return reply;
  }

  /** The module's changes of one notefile: queue notes become events, database notes merge. */
  async #push(
    session: SyncSession,
    device: DeviceRecord,
    request: PushRequest,
    transport: SyncTransport,
  ): Promise<PushReply> {
    const kind = this.#notefile(request.file, transport, "up");
    const { file } = request;
    const now = this.#clock.now();
    const base = eventBaseOf(device, session);
    const events: NoteEvent[] = [];
    let merged = 0;
    for (const note of request.notes) {
      if (kind.queue) {
        if (!note.deleted) events.push(this.#noteEvent(session, device, base, file, note, true, now));
        continue;
      }
      const stored = await this.#store.notefiles.getNote(device.uid, file, note.id);
      const outcome = mergeNote(stored && toProtocolNote(stored), note);
      if (!outcome.changed) continue;
      // The device's version kept as it came is never sent back to it; a merged one is.
      const { change: _change, ...version } = fromProtocolNote(outcome.note, 0, outcome.note === note);
      await this.#store.notefiles.putVersion(device.uid, file, version, now);
      events.push(this.#noteEvent(session, device, base, file, note, false, now));
      merged++;
    }
    const stored = await this.#recordNoteEvents(session, device, file, events);
    if (kind.queue) merged = stored;
    session.traffic.notesSent += request.notes.length;
    return { v: PROTOCOL_VERSION, merged };
  }

  /** A device note's event, its UID derived from its content. */
  #noteEvent(
    session: SyncSession,
    device: DeviceRecord,
    base: EventBase,
    file: string,
    note: ProtocolNote,
    queue: boolean,
    now: number,
  ): NoteEvent {
    // The body's canonical text serves both its stored document and its UID.
    const { data, text, body, whenSec } = noteEvent(
      base,
      file,
      note,
      eventRequest(note, queue),
      queue,
      now / 1000,
      this.#located,
    );
    const event = {
      uid: deviceEventUid(device.uid, session.trackerSession, file, note, md5Hex, body),
      projectUid: device.projectUid,
      deviceUid: device.uid,
      sessionUid: session.uid,
      file,
      data,
      dataText: text,
      whenSec,
    };
    return { event, note };
  }

  /**
   * Stores the events of a batch's notes, each once per content, in one store call (health notes
   * also go to the device's health log): how many were stored now.
   */
  async #recordNoteEvents(
    session: SyncSession,
    device: DeviceRecord,
    file: string,
    events: readonly NoteEvent[],
  ): Promise<number> {
    const stored = await this.#events.recordOnce(events.map((e) => e.event));
    session.events += stored.length;
    if (HEALTH_FILES.has(file) && stored.length > 0) {
      const notes = new Map(events.map((e) => [e.event.uid, e.note]));
      for (const record of stored)
        await this.#store.telemetry.addHealthLog(
          healthEntry(device, file, notes.get(record.uid)!, record.whenSec),
        );
    }
    return stored.length;
  }

  /** The hub's changes of one notefile after its tracker for the device (not yet acknowledged). */
  async #pull(
    session: SyncSession,
    device: DeviceRecord,
    request: PullRequest,
    transport: SyncTransport,
  ): Promise<PullReply> {
    this.#notefile(request.file, transport, "down");
    const notefiles = this.#store.notefiles;
    const max = Math.min(request.max ?? MAX_BATCH_NOTES, MAX_BATCH_NOTES);
    const after = await notefiles.trackerPosition(device.uid, request.file, SYNC_TRACKER);
    const batch = await notefiles.changesAfter(device.uid, request.file, SYNC_TRACKER, after, max);
    const notes: ProtocolNote[] = [];
    let through = batch.through;
    let more = batch.more;
    let size = 0;
    for (const stored of batch.notes) {
      const note = toProtocolNote(stored);
      const noteBytes = jsonBytes(note);
      if (notes.length > 0 && size + noteBytes > BATCH_LIMITS.bytes) {
        // The rest waits for the next batch: this one covers the changes before it.
        through = stored.change - 1;
        more = true;
        break;
      }
      notes.push(note);
      size += noteBytes;
    }
    session.traffic.notesReceived += notes.length;
    return { v: PROTOCOL_VERSION, file: request.file, after, through, notes, more };
  }

  /**
   * The module merged a pulled batch: the tracker moves to `through` if it stands at `after` (a
   * repeated ack that finds it at `through` already changes nothing), else it starts again from 0.
   * Delivered inbound queue notes go; tombstones every tracker has passed go.
   */
  async #ack(device: DeviceRecord, request: AckRequest, transport: SyncTransport): Promise<AckReply> {
    const kind = this.#notefile(request.file, transport, "down");
    const notefiles = this.#store.notefiles;
    const nf = await notefiles.getNotefile(device.uid, request.file);
    const last = nf ? nf.nextChange - 1 : 0;
    if (request.through > last) {
      throw refuse(
        SYNC_ERRORS.badRequest,
        `through ${request.through} is past the hub's last change (${last}) of ${request.file}`,
      );
    }
    // A notefile the hub does not hold has nothing to track (its pull was an empty batch).
    if (!nf) return { v: PROTOCOL_VERSION };
    const position = await notefiles.trackerPosition(device.uid, request.file, SYNC_TRACKER);
    if (position === request.after) {
      await notefiles.setTrackerPosition(device.uid, request.file, SYNC_TRACKER, request.through);
      if (kind.queue) await notefiles.removeDelivered(device.uid, request.file, request.through);
      else await notefiles.purgeTombstones(device.uid, request.file);
      return { v: PROTOCOL_VERSION };
    }
    if (position === request.through) return { v: PROTOCOL_VERSION };
    await notefiles.setTrackerPosition(device.uid, request.file, SYNC_TRACKER, 0);
    return { v: PROTOCOL_VERSION, reset: true };
  }

  /** Signals after `after` (earlier ones acknowledged), waiting for one first when asked. */
  async #signals(request: SignalsRequest, bytes: number): Promise<ProtocolReply> {
    const waiting = this.#sessions.get(request.token, this.#clock.now());
    if (!waiting) throw expired();
    waiting.lastSeenMs = this.#clock.now();
    const wait = Math.min(request.wait ?? 0, MAX_SIGNAL_WAIT_MS);
    if (wait > 0) {
      // Listen before looking, so that nothing queued in between is missed.
      const woken = this.#wait(waiting.deviceUid, wait);
      try {
        const signals = await this.#store.devices.pendingSignals(waiting.deviceUid);
        if (!signals.some((s) => s.seq > request.after)) await woken.promise;
      } finally {
        woken.cancel();
      }
    }
    return this.#store.transaction(async () => {
      const found = await this.#session(request.token);
      if ("refused" in found) return found.refused;
      const { session, device } = found;
      await this.#store.devices.acknowledgeSignals(device.uid, request.after);
      const signals = (await this.#store.devices.pendingSignals(device.uid))
        .filter((s) => s.seq > request.after)
        .slice(0, MAX_SIGNALS);
      const reply: SignalsReply = {
        v: PROTOCOL_VERSION,
        signals: signals.map((s) => ({ seq: s.seq, body: s.body, time: Math.floor(s.created / 1000) })),
        files: await this.#pendingFiles(device.uid, session.secure),
      };
      await this.#account(session, bytes, reply);
      return reply;
    });
  }

  /** Resolves when the device's signals or notefiles change, `ms` pass on the hub clock, or the hub closes. */
  #wait(deviceUid: string, ms: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      const timer = this.#clock.setTimer(() => done(), ms);
      const stop = this.#notifier.listen(deviceUid, () => done());
      const done = () => {
        this.#clock.clearTimer(timer);
        stop();
        this.#waits.delete(done);
        resolve();
      };
      this.#waits.add(done);
      cancel = done;
    });
    return { promise, cancel };
  }

  // --- session records -----------------------------------------------------------------------

  /**
   * Counts a message and its reply. The session record is rewritten with the counts at most once a
   * second of hub time while the session is open (and always when it ends): a sync of thousands of
   * notes would otherwise spend as much on its session record as on its notes.
   */
  async #account(session: SyncSession, requestBytes: number, reply: ProtocolReply): Promise<void> {
    const now = this.#clock.now();
    session.traffic.bytesSent += requestBytes;
    session.traffic.bytesReceived += jsonBytes(reply);
    session.lastSeenMs = now;
    if (now - session.recordedMs >= RECORD_EVERY_MS) await this.#writeSession(session, now, null);
  }

  async #writeSession(session: SyncSession, now: number, ended: JsonObject | null): Promise<void> {
    session.recordedMs = now;
    await this.#store.telemetry.addSession({
      uid: session.uid,
      deviceUid: session.deviceUid,
      projectUid: session.projectUid,
      beganSec: Math.floor(session.beganMs / 1000),
      endedSec: ended ? Math.floor(now / 1000) : null,
      firstSync: session.firstSync,
      data: { ...session.doc, period: sessionPeriod(session, now), events: session.events, ...ended },
    });
  }

  /** Ends a session: its record, its `session.end` event, the device no longer connected by it. */
  async #end(session: SyncSession, why: string, now: number, usage?: SessionUsage): Promise<void> {
    this.#sessions.remove(session);
    this.#store.afterCommit(() => this.#sessions.remove(session));
    await this.#writeSession(session, now, { why_session_closed: why });
    const device = await this.#store.devices.getDevice(session.deviceUid);
    if (!device || device.projectUid !== session.projectUid) return;
    await this.#events.record({
      projectUid: device.projectUid,
      deviceUid: device.uid,
      file: SESSION_FILE,
      sessionUid: session.uid,
      data: {
        ...eventBase(device, session),
        req: "session.end",
        file: SESSION_FILE,
        when: Math.floor(now / 1000),
        body: { why, ...(usage ? { usage } : {}), period: sessionPeriod(session, now) },
      },
    });
    // The device was last heard from at the session's last message; it is no longer connected
    // by this session (unless another continuous one holds it).
    const stillHeld = this.#sessions.ofDevice(device.uid).some((s) => s.continuous);
    await this.#store.devices.putDevice({
      uid: device.uid,
      projectUid: device.projectUid,
      productUid: device.productUid,
      lastActivity: Math.max(device.lastActivity ?? 0, Math.min(now, session.lastSeenMs)),
      ...(session.continuous && !stillHeld ? { connected: false } : {}),
    });
  }

  /** Ends the sessions that expired (once a minute of hub time at most, while messages arrive). */
  async #sweep(): Promise<void> {
    const now = this.#clock.now();
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    this.#challenges.prune(now);
    this.#throttle?.prune(now);
    const gone = this.#sessions.sweep(now);
    if (gone.length === 0) return;
    await this.#store.transaction(async () => {
      for (const session of gone) await this.#end(session, "session expired", session.lastSeenMs);
    });
  }
}

/** A device note's event, before it is stored, and the note it came from. */
interface NoteEvent {
  readonly event: NewEvent & { uid: string };
  readonly note: ProtocolNote;
}

/** How often an open session's record is rewritten with its counts, at most (hub time). */
const RECORD_EVERY_MS = 1000;

/** A health note as the device's health log keeps it. */
function healthEntry(
  device: DeviceRecord,
  file: string,
  note: ProtocolNote,
  whenSec: number,
): HealthLogRecord {
  const body = note.body ?? {};
  return {
    projectUid: device.projectUid,
    deviceUid: device.uid,
    whenSec,
    alert: body.alert === true,
    text: typeof body.text === "string" ? body.text : JSON.stringify(body),
    type: typeof body.type === "string" ? body.type : file === "_health_host.qo" ? "host" : "health",
  };
}
