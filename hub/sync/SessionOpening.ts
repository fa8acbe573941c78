import { decodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import type { Clock } from "../../core/Clock.js";
import type { Crypto } from "../../core/Crypto.js";
import {
  signedText,
  SYNC_ERRORS,
  type DevicePlace,
  type FirmwareOffer,
  type HelloReply,
  type HelloRequest,
  type OpenReply,
  type OpenRequest,
  type ProtocolReply,
  type SessionContext,
} from "../../protocol/messages.js";
import { sessionRadio } from "../../protocol/sessionRadio.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { readDevicePublicKey } from "../devices/devicePublicKey.js";
import type { DeviceService } from "../devices/DeviceService.js";
import type { EventService } from "../events/EventService.js";
import type { HubIds } from "../HubIds.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceDetails, DeviceRecord, LocationRecord, ProductRecord } from "../store/records.js";
import {
  disabled,
  jsonBytes,
  refuse,
  SESSION_FILE,
  type SessionRecords,
  type SyncTransport,
} from "./SessionRecords.js";
import { CHALLENGE_TEXT_LENGTH, type SyncChallenges } from "./SyncChallenges.js";
import type { HelloLimiter } from "./HelloThrottle.js";
import type { SessionTickets, TicketClaim } from "./SessionTickets.js";
import { notPinned, reportsWhatIsHeld, resumedKey, storedKeyBytes } from "./openingChecks.js";
import type { SyncPlaces } from "./SyncPlaces.js";
import { refusal, type SyncRefusal } from "./SyncRefusal.js";
import { eventBase, located, sessionDocument, transportOf, triangulate } from "./syncDocuments.js";
import type { SyncSession } from "./SyncSessions.js";
import { deviceVariables, environmentOf, variableOf, type DeviceVariables } from "./deviceEnvironment.js";
import { foldedMessages, type FoldParts } from "./foldedMessages.js";
import { devicePlace, type ZoneLookup } from "./timeZone.js";

/**
 * Whom the hub lets in: `tofu` (trust on first use, the local default) stores the key a device
 * sends at its first session; `pinned` lets in only devices whose key was set through the API
 * beforehand (`PUT …/devices/{deviceUID}/public-key`, or `public_key` at provisioning).
 */
export type DeviceAuth = "tofu" | "pinned";

export interface SessionOpeningParts extends FoldParts {
  readonly store: HubStore;
  readonly clock: Clock;
  readonly ids: HubIds;
  readonly events: EventService;
  readonly devices: DeviceService;
  readonly crypto: Crypto;
  readonly challenges: SyncChallenges;
  readonly tickets: SessionTickets;
  readonly throttle: HelloLimiter | undefined;
  readonly deviceAuth: DeviceAuth;
  readonly places: SyncPlaces;
  readonly records: SessionRecords;
  /**
   * The `firmware` message's answer for a device (the DFU service's `offer`), for opens that ask
   * for it: the device as the open wrote it, and its variables as the open read them.
   */
  readonly firmwareOffer: (
    device: DeviceRecord,
    variable: (key: string) => string | undefined,
  ) => Promise<ProtocolReply>;
}

const encoder = new TextEncoder();

/** A challenge `hello` issued, checked at `open`: the bytes its hello took, and when it expires. */
type Pending = NonNullable<Awaited<ReturnType<SyncChallenges["check"]>>>;
/** What an open proves its key with: a challenge to sign, or a session ticket (no hello: no bytes). */
type Proof = Pending | (Pending & { readonly ticket: TicketClaim });

/**
 * `hello` and `open`: the module proves its key (trust on first use, or a pinned key), the device
 * is provisioned into the product's project, and the session opens with what the module reports.
 */
export class SessionOpening {
  constructor(private readonly p: SessionOpeningParts) {}

  /**
   * Anyone may say hello: the reply tells nothing about the device (whether the hub knows it), and
   * the hellos answered are limited per device and per source address.
   */
  async hello(request: HelloRequest, bytes: number, source: string | undefined): Promise<ProtocolReply> {
    const now = this.p.clock.now();
    const over = source === undefined ? undefined : await this.p.throttle?.take(request.device, source, now);
    if (over) {
      throw refuse(
        SYNC_ERRORS.rateLimited,
        `too many hellos ${over.limit}: say hello again in ${Math.ceil(over.wait / 1000)} s`,
      );
    }
    const product = await this.p.store.projects.getProduct(request.product);
    if (!product) throw noProduct(request.product);
    const reply = { v: PROTOCOL_VERSION, time: now, challenge: "" };
    // Every challenge is as long: the reply's size is known before its challenge is made.
    const received = jsonBytes({ ...reply, challenge: "A".repeat(CHALLENGE_TEXT_LENGTH) });
    reply.challenge = this.p.challenges.issue(request.device, request.product, now, this.p.ids.bytes(32), {
      sent: bytes,
      received,
    });
    return reply satisfies HelloReply;
  }

  async open(request: OpenRequest, transport: SyncTransport, bytes: number): Promise<ProtocolReply> {
    const now = this.p.clock.now();
    // Neither waited on when there is nothing to wait for (a resumed session; the zones loaded).
    const proving = this.#proof(request, transport, now);
    const pending = proving instanceof Promise ? await proving : proving;
    const zones = (this.p.places.loadedZones() ?? { lookup: await this.p.places.zones() }).lookup;
    const { context } = request;
    const placed =
      context.where || context.tower || context.triangulate || request.push?.notes.some((n) => n.where);
    if (placed) await this.p.places.names();
    return this.p.store.transaction(async () => {
      const admitted = await this.#admit(request, pending, now);
      if ("refused" in admitted) return admitted.refused;
      const { device, tracker, reset } = admitted;
      const session = await this.#begin(request, await this.#report(device, context, now), {
        transport,
        tracker,
        reset,
        pending,
        now,
      });
      // card.time's place: the last GPS fix, else the serving tower's place, else the
      // triangulated one (card.time.rsp: area, zone, minutes, lat/lon, country "if the cell tower
      // is recognized").
      const d = session.device.details;
      const place = d.gpsLocation ?? d.towerLocation ?? d.triangulatedLocation;
      const { deleted, files, signals } = await this.p.records.outlook(device.uid, session.session.secure);
      for (const name of deleted) session.session.toldDeleted.add(name);
      // The device's variables, read once: its environment and the firmware offer's `_fw`/`_fwc`.
      const vars = await deviceVariables(this.p.store, session.device);
      const reply: OpenReply = {
        v: PROTOCOL_VERSION,
        session: session.session.uid,
        token: session.session.token,
        time: now,
        tracker,
        reset,
        ...(place ? { where: placeOf(place, new Date(now), zones) } : {}),
        env: environmentOf(vars),
        files,
        ...(deleted.length > 0 ? { deleted } : {}),
        signals,
        ...this.#ticket(request, transport, admitted.key, pending, now),
        ...(request.firmware_offer ? await this.#firmwareOffer(session.device, vars) : {}),
      };
      return foldedMessages(this.p, request, reply, {
        session: session.session,
        device: session.device,
        transport,
        bytes,
      });
    });
  }

  /**
   * How the open proves the device's key, checked before any store call: a challenge of this
   * hub's `hello` (signed, checked in the transaction), or a session ticket (over TLS only).
   */
  #proof(request: OpenRequest, transport: SyncTransport, now: number): Proof | Promise<Proof> {
    if (request.challenge === undefined) {
      if (!transport.secure) throw ticketRefused("session tickets are taken only over TLS");
      const ticket = this.p.tickets.check(request.ticket!, request.device, request.product, now);
      if (typeof ticket === "string") throw ticketRefused(ticket);
      return { ticket, expires: ticket.expires, sent: 0, received: 0 };
    }
    return this.#challenged(request, now);
  }

  /** The challenge `hello` issued that the open answers, or the refusal. */
  async #challenged(request: OpenRequest, now: number): Promise<Proof> {
    const challenge = request.challenge!;
    const pending = await this.p.challenges.check(challenge, request.device, request.product, now);
    if (!pending) {
      throw refuse(SYNC_ERRORS.auth, "the challenge is unknown, used or expired: say hello again");
    }
    return pending;
  }

  /**
   * The ticket of an open that proved the key with a signature, over TLS: later opens present it
   * until it expires. A resumed open gets none (the module keeps the one it has): a ticket's
   * lifetime runs from the proof, so whoever holds one cannot renew it.
   */
  #ticket(
    request: OpenRequest,
    transport: SyncTransport,
    key: string,
    proof: Proof,
    now: number,
  ): { ticket?: string; ticket_expires?: number } {
    if ("ticket" in proof || !transport.secure) return {};
    const expires = now + this.p.tickets.ttlMs;
    const ticket = this.p.tickets.issue(request.device, request.product, key, expires);
    return ticket ? { ticket, ticket_expires: expires } : {};
  }

  /**
   * The images the hub wants the device to take, as its `firmware` message would be answered (in
   * the open's transaction: the DFU service's work is a nested unit of it). A refusal or a fault
   * is left out, so that firmware never keeps notes from moving: the module then sends `firmware`
   * and is answered the refusal (or the fault) there.
   */
  async #firmwareOffer(device: DeviceRecord, vars: DeviceVariables): Promise<{ firmware?: FirmwareOffer }> {
    let answer: ProtocolReply;
    try {
      answer = await this.p.firmwareOffer(device, (key) => variableOf(vars, key));
    } catch {
      return {};
    }
    if (typeof answer.err === "string") return {};
    const { v: _v, ...offer } = answer;
    return { firmware: offer as FirmwareOffer };
  }

  /**
   * Who may open: the product's device, proven by its key, provisioned and enabled; then its
   * tracker session, its `env.default` values, and its earlier sessions ended.
   */
  async #admit(
    request: OpenRequest,
    pending: Proof,
    now: number,
  ): Promise<
    { refused: ProtocolReply } | { device: DeviceRecord; tracker: string; reset: boolean; key: string }
  > {
    const store = this.p.store;
    const product = await store.projects.getProduct(request.product);
    if (!product) return { refused: noProduct(request.product).reply() };
    const known = await store.devices.getDevice(request.device);
    if (known && known.projectUid !== product.projectUid) {
      const text = `the device belongs to another project than the one owning ${request.product}`;
      return { refused: refusal(SYNC_ERRORS.product, text) };
    }
    // A resumed session's key and a known device reporting what the hub holds: nothing waited on.
    const key =
      "ticket" in pending
        ? resumedKey(pending, known)
        : await this.#authenticate(request, product, known, pending);
    if (typeof key !== "string") return { refused: key };
    if (known?.disabled) return { refused: disabled() };
    const device = reportsWhatIsHeld(request.context, known)
      ? known!
      : await this.#provision(request, product, known, key);
    if (device.disabled) return { refused: disabled() };

    // Tracker sessions: a module that does not hold the hub's starts again from nothing.
    const held = await store.devices.trackerSession(device.uid);
    let tracker = held ?? "";
    const reset = held === undefined || request.tracker !== held;
    if (reset) {
      await store.notefiles.clearTracker(device.uid, SYNC_TRACKER);
      tracker = this.p.ids.uuid();
      await store.devices.setTrackerSession(device.uid, tracker);
    }
    const defaults = request.context.env_defaults;
    if (defaults) await this.#envDefaults(device.uid, defaults, now);
    for (const earlier of await this.p.records.sessions.ofDevice(device.uid)) {
      await this.p.records.end(earlier, "superseded by a new session", now);
    }
    return { device, tracker, reset, key };
  }

  /**
   * Identity of an open that answers a challenge (a resumed one's is `resumedKey`): the stored
   * (pinned) key, or, trusted on first use, the one the module sends. The key's PEM once the
   * signature proves it (and the challenge is spent), else the refusal.
   */
  async #authenticate(
    request: OpenRequest,
    product: ProductRecord,
    device: DeviceRecord | undefined,
    pending: Pending,
  ): Promise<string | ProtocolReply> {
    const storedKey = device?.publicKey ?? null;
    const pinned = this.p.deviceAuth === "pinned";
    if (pinned && storedKey === null) return notPinned(request.device, product.projectUid);
    const pem = storedKey ?? request.key;
    if (pem === undefined) {
      return refusal(SYNC_ERRORS.auth, "the hub holds no key for the device: send its public key");
    }
    // A stored key was checked when it was stored (first session, pinning): only its bytes are
    // read again, not the curve checks (a point decompression and a multiplication, most of an
    // open's CPU when done at every session).
    const read = storedKey !== null ? storedKeyBytes(storedKey) : readDevicePublicKey(pem);
    if ("fault" in read) return refusal(SYNC_ERRORS.auth, `the public key ${read.fault}`);
    const challenge = request.challenge!;
    const signature = decodeBase64(request.signature!);
    const text = encoder.encode(signedText(request.device, request.product, challenge));
    if (!signature || !(await this.p.crypto.verify(read.key, text, signature))) {
      // Pinned: one answer whether the device has no pinned key or another one.
      if (pinned) return notPinned(request.device, product.projectUid);
      return refusal(SYNC_ERRORS.auth, "the signature does not prove possession of the device's key");
    }
    // Spent once proven, in the open's transaction: a second open with it is refused.
    if (!(await this.p.challenges.spend(challenge, pending.expires))) {
      return refusal(SYNC_ERRORS.auth, "the challenge is unknown, used or expired: say hello again");
    }
    return read.pem;
  }

  /**
   * Provisioning: an unknown device joins the product's project with the product's defaults; a
   * known one reporting something new is registered again (see `reportsWhatIsHeld`).
   */
  async #provision(
    request: OpenRequest,
    product: ProductRecord,
    known: DeviceRecord | undefined,
    pem: string,
  ): Promise<DeviceRecord> {
    const { context } = request;
    const firmwareModule = JSON.stringify(context.firmware);
    const device = await this.p.devices.register({
      deviceUid: request.device,
      projectUid: product.projectUid,
      productUid: product.uid,
      sku: context.sku,
      firmwareModule,
      serialNumber: context.sn,
    });
    if ((known?.publicKey ?? null) !== null) return device;
    return this.p.store.devices.putDevice({
      uid: device.uid,
      projectUid: device.projectUid,
      productUid: device.productUid,
      publicKey: pem,
    });
  }

  /** The device record takes what the module reports. */
  async #report(
    device: DeviceRecord,
    context: SessionContext,
    now: number,
  ): Promise<{ device: DeviceRecord; details: DeviceDetails }> {
    const locate = this.p.places.located;
    const details: DeviceDetails = {};
    const nowSec = Math.floor(now / 1000);
    if (context.where) details.gpsLocation = locate(context.where.lat, context.where.lon, context.where.time);
    if (context.tower) {
      const t = context.tower;
      details.towerLocation = locate(t.lat, t.lon, nowSec);
      details.towerInfo = { mcc: t.mcc, mnc: t.mnc, lac: t.lac, cell_id: t.cid };
    }
    const tri = context.triangulate && triangulate(context.triangulate);
    if (tri) details.triangulatedLocation = locate(tri.lat, tri.lon, nowSec);
    const host = context.host;
    const reported = await this.p.store.devices.putDevice(
      {
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        lastActivity: now,
        firmwareHost: host === undefined ? undefined : typeof host === "string" ? host : JSON.stringify(host),
        voltage: context.voltage,
        temperature: context.temp,
        connected: context.continuous === true,
        ...(Object.keys(details).length > 0 ? { details } : {}),
      },
      device,
    );
    return { device: reported, details };
  }

  /** The session, kept once the transaction commits, and its `session.begin` event. */
  async #begin(
    request: OpenRequest,
    reported: { device: DeviceRecord; details: DeviceDetails },
    opening: { transport: SyncTransport; tracker: string; reset: boolean; pending: Proof; now: number },
  ): Promise<{ session: SyncSession; device: DeviceRecord }> {
    const { device, details } = reported;
    const { context } = request;
    const { now, pending } = opening;
    const session: SyncSession = {
      token: this.p.ids.uuid(),
      uid: this.p.ids.timeUuid(now),
      deviceUid: device.uid,
      projectUid: device.projectUid,
      trackerSession: opening.tracker,
      secure: opening.transport.secure,
      continuous: context.continuous === true,
      transport: transportOf(context.radio),
      beganMs: now,
      lastSeenMs: now,
      recordedMs: Number.NEGATIVE_INFINITY,
      firstSync: opening.reset,
      doc: {},
      traffic: { bytesSent: pending.sent, bytesReceived: pending.received, notesSent: 0, notesReceived: 0 },
      events: 0,
      toldDeleted: new Set(),
    };
    // The document as made, not copied into the empty one (an object filled by Object.assign is
    // left in V8's slow dictionary mode, and the record's every write copies it).
    (session as { doc: JsonObject }).doc = sessionDocument(device, session, context, request.why);
    await this.p.records.sessions.add(session);

    // The base's members, then the event's, set on the base itself (a spread of it followed by
    // more members makes V8 build a new hidden class at every session).
    const begin = eventBase(device, session);
    begin.req = "session.begin";
    begin.file = SESSION_FILE;
    begin.when = Math.floor(now / 1000);
    begin.body = context.usage ? { why: request.why, usage: context.usage } : { why: request.why };
    begin.sku = context.sku;
    begin.voltage = context.voltage;
    Object.assign(begin, sessionRadio(context.radio));
    if (context.temp !== undefined) begin.temp = context.temp;
    if (context.ordering_code) begin.ordering_code = context.ordering_code;
    if (context.wifi) Object.assign(begin, context.wifi); // the Event schema's `ssid`, `bssid`
    if (details.gpsLocation) located(begin, "where", details.gpsLocation);
    await this.p.events.record({
      projectUid: device.projectUid,
      deviceUid: device.uid,
      file: SESSION_FILE,
      sessionUid: session.uid,
      data: begin,
    });
    return { session, device };
  }

  /** The module's `env.default` values replace what the hub held of them. */
  async #envDefaults(
    deviceUid: string,
    defaults: Readonly<Record<string, string>>,
    now: number,
  ): Promise<void> {
    const env = this.p.store.env;
    const scope = { kind: "device_default", uid: deviceUid } as const;
    for (const old of await env.get(scope)) {
      if (!(old.key in defaults)) await env.delete(scope, old.key);
    }
    await env.set(scope, { ...defaults }, now);
  }
}

/** A place the hub knows as `open`'s `where`: position, zone, and the area and country named. */
function placeOf(place: LocationRecord, at: Date, zones: ZoneLookup | undefined): DevicePlace {
  return {
    ...devicePlace(place.latitude, place.longitude, at, zones),
    ...(place.name ? { area: place.name } : {}),
    ...(place.country ? { country: place.country } : {}),
  };
}

function ticketRefused(why: string): SyncRefusal {
  return refuse(SYNC_ERRORS.ticket, `${why}: prove the key again (say hello)`);
}

function noProduct(product: string): SyncRefusal {
  return refuse(SYNC_ERRORS.product, `no project of this hub owns the product ${product}`);
}
