import type { JsonObject } from "../core/json.js";
import type { NoteRecord } from "./NoteRecord.js";
import type { SessionRadio } from "./sessionRadio.js";

/**
 * The device-facing sync protocol, version 1 (docs/sync-protocol.md is its specification).
 * Every message is one JSON object; the module sends a request, the hub answers with a reply.
 * A reply is either the request type's fields or `{v, err}`, where `err` starts with the `{code}`
 * the module reports (at most 253 characters, as on the hosted hub).
 *
 * A session: `hello` (the hub's time and a challenge) -> `open` (the module proves it holds its
 * key, sends its context; the hub answers with a session token, the device's environment, the
 * notefiles with changes for it and the tracker-session check) -> any number of `push`
 * (the module's changes of one notefile), `pull` + `ack` (the hub's changes of one notefile),
 * `signals` -> `close`. Firmware messages (`firmware`, `read`, `dfu`) and web requests (`web`)
 * ride on an open session too.
 */

export interface ProtocolRequest extends JsonObject {
  readonly v: number;
  readonly type: string;
}

export interface ProtocolReply extends JsonObject {
  readonly v: number;
  readonly err?: string;
}

export const MAX_ERROR_TEXT = 253;

/**
 * The most a change batch (`push` or a `pull` reply) holds: notes, and bytes of their JSON (a
 * batch stops before the note that would pass it; a single larger note goes alone).
 */
export const BATCH_LIMITS = { notes: 100, bytes: 256 * 1024 } as const;

/** Error codes a hub answers with, in braces at the start of `err`. */
export const SYNC_ERRORS = {
  /** The request is malformed or of an unknown type. */
  badRequest: "bad-request",
  /** The module speaks a protocol version the hub does not. */
  version: "protocol-version",
  /** The ProductUID belongs to no project of this hub. */
  product: "product-noexist",
  /** The device is disabled (or, on a product without auto-provisioning, not provisioned). */
  disabled: "device-disabled",
  /** The signature does not prove possession of the device's key. */
  auth: "auth",
  /** The session token is unknown or expired: open a new session. */
  session: "session-expired",
  /** Too many hellos for the device or from the address: say hello again later. */
  rateLimited: "rate-limited",
  /** The hub failed. */
  hub: "hub-error",
} as const;

/** Why a session was opened (`_session.qo` `why`, the session record's `why_session_opened`). */
export type SessionTrigger =
  "boot" | "explicit" | "note" | "outbound" | "inbound" | "continuous" | "power" | "dfu" | "env";

// --- hello -------------------------------------------------------------------------------

export interface HelloRequest extends ProtocolRequest {
  readonly type: "hello";
  readonly device: string;
  readonly product: string;
}

export interface HelloReply extends ProtocolReply {
  /** The hub's time, epoch milliseconds. */
  readonly time: number;
  /** What the module signs in `open` and names there (opaque text; the hub's to check). */
  readonly challenge: string;
  /**
   * No longer answered: it told anyone whether the hub holds the device. A module sends its key
   * at every `open`, and the hub ignores it when it holds one.
   */
  readonly known?: boolean;
}

// --- open --------------------------------------------------------------------------------

/** What the module tells the hub about itself at every session (the session record's fields). */
export interface SessionContext extends JsonObject {
  /** `card.version` body of the module. */
  readonly firmware: JsonObject;
  /** The host firmware version the host set with `hub.set version`. */
  readonly host?: string | JsonObject;
  readonly sn?: string;
  readonly sku: string;
  readonly ordering_code?: string;
  /** Supply volts and whether on USB/line power. */
  readonly voltage: number;
  readonly usb: boolean;
  readonly temp?: number;
  /** What the radio saw (protocol/sessionRadio.ts builds it at one end and copies it at the other). */
  readonly radio: SessionRadio;
  /** The last GPS fix, when the module has one. */
  readonly where?: { readonly lat: number; readonly lon: number; readonly time: number };
  /** The cell tower serving a cellular module. */
  readonly tower?: TowerRecord;
  /** The scans `card.triangulate` asks for: the towers in range and the host's WiFi access points. */
  readonly triangulate?: TriangulationScan;
  /** Seconds the module waited in penalty boxes before this session, and connects that failed. */
  readonly penalty_secs?: number;
  readonly failed_connects?: number;
  /** Traffic since the module's previous session (counted by the module). */
  readonly usage?: SessionUsage;
  /** `env.default` values, synced up to the hub (name to value). */
  readonly env_defaults?: Readonly<Record<string, string>>;
  /** True when the module holds the session open (continuous mode). */
  readonly continuous?: boolean;
  /** The module's energy counters (its energy model), copied into the hub's session record. */
  readonly energy?: SessionEnergy;
}

/**
 * Counters of the module's high-power (radio-on) time and cycles and the charge it used, named
 * as the hub's session records name them (`hp_*`, `power_mah`).
 */
export interface SessionEnergy extends JsonObject {
  readonly hp_secs_total: number;
  readonly hp_secs_data: number;
  readonly hp_cycles_total: number;
  readonly hp_cycles_data: number;
  readonly power_mah: number;
}

/**
 * A cell tower the module hears. `lat`/`lon` are where the hub's tower database puts it: the
 * simulated world knows its towers, so the module passes their positions along (the hosted hub
 * looks the cell up instead).
 */
export interface TowerRecord extends JsonObject {
  readonly mcc: number;
  readonly mnc: number;
  readonly lac: number;
  readonly cid: number;
  readonly rat: string;
  /** Received signal, dBm. */
  readonly rssi: number;
  readonly lat: number;
  readonly lon: number;
}

export interface TriangulationScan extends JsonObject {
  /** `card.triangulate`'s mode: `cell`, `wifi`, or both. */
  readonly mode: string;
  /** Towers in range, serving first. */
  readonly towers: readonly TowerRecord[];
  /** Access points of the host's latest WiFi scan (the hub has no database to place them). */
  readonly wifi: readonly {
    readonly ssid: string;
    readonly bssid: string;
    readonly rssi: number;
    readonly channel: number;
  }[];
  /** Epoch seconds of the WiFi scan (0: unknown). */
  readonly time: number;
}

export interface SessionUsage extends JsonObject {
  readonly bytes_sent: number;
  readonly bytes_received: number;
  readonly notes_sent: number;
  readonly notes_received: number;
}

export interface OpenRequest extends ProtocolRequest {
  readonly type: "open";
  readonly device: string;
  readonly product: string;
  /** The challenge of the `hello` reply, and the module's signature of `signedText(...)`. */
  readonly challenge: string;
  readonly signature: string;
  /**
   * The module's public key (PEM). A module sends it at every `open`; the hub takes it only at the
   * device's first session in trust-on-first-use mode, and ignores it once it holds a key.
   */
  readonly key?: string;
  readonly why: SessionTrigger;
  /** The module's tracker session for this hub (empty before the first session). */
  readonly tracker: string;
  readonly context: SessionContext;
}

export interface OpenReply extends ProtocolReply {
  /** SessionUID (the session record, the events of this session). */
  readonly session: string;
  /** Carried by every later request of the session. */
  readonly token: string;
  /** The hub's time, epoch milliseconds. */
  readonly time: number;
  /**
   * The tracker session both ends keep from now on. When the module's did not match the hub's,
   * the hub forgot its trackers for the device and `reset` asks the module to forget its own:
   * everything is sent again, which the merge rules make harmless.
   */
  readonly tracker: string;
  readonly reset: boolean;
  /** Where the hub places the device (for `card.time`, `card.location` fallbacks). */
  readonly where?: DevicePlace;
  /** The device's environment as the hub resolves it. */
  readonly env: DeviceEnvironment;
  /** Notefiles with changes for the module (hub to module). */
  readonly files: readonly string[];
  /**
   * Notefiles deleted on the hub (Delete Notefiles) that the module has not yet confirmed
   * deleting: inbound queues and databases (secure ones only over TLS). The module deletes what
   * the hub had of them and confirms in its `close`; absent when there are none.
   */
  readonly deleted?: readonly string[];
  /** Signals waiting for the module. */
  readonly signals: number;
}

export interface DevicePlace extends JsonObject {
  readonly lat?: number;
  readonly lon?: number;
  /** Country code (`DE`) and area (city, region). */
  readonly country?: string;
  readonly area?: string;
  /** Time zone as `card.time` reports it: abbreviation and name (`CET,Europe/Berlin`). */
  readonly zone?: string;
  /** Offset of that zone from UTC now, in minutes. */
  readonly minutes?: number;
}

export interface DeviceEnvironment extends JsonObject {
  readonly device: Readonly<Record<string, string>>;
  readonly fleet: Readonly<Record<string, string>>;
  readonly project: Readonly<Record<string, string>>;
  /** Epoch seconds of the last change of any of them (0 when none was ever set). */
  readonly modified: number;
}

// --- notefile changes --------------------------------------------------------------------

/**
 * A batch of one notefile's changes: the notes changed after `after` up to and including
 * `through` (change numbers of the sending end). The receiver merges them; the sender's tracker
 * moves to `through` only once the batch is acknowledged, and only if it still stands at
 * `after` (else it starts again from the beginning).
 */
export interface ChangeBatch {
  readonly file: string;
  readonly after: number;
  readonly through: number;
  readonly notes: readonly NoteRecord[];
}

/** The module's changes of one notefile; the reply acknowledges them. */
export interface PushRequest extends ProtocolRequest, ChangeBatch {
  readonly type: "push";
  readonly token: string;
}

export interface PushReply extends ProtocolReply {
  /** Notes that changed the hub's replica or made an event (a retransmission makes none). */
  readonly merged: number;
}

/** Asks for the hub's changes of one notefile after the hub's tracker for the device. */
export interface PullRequest extends ProtocolRequest {
  readonly type: "pull";
  readonly token: string;
  readonly file: string;
  readonly max?: number;
}

export interface PullReply extends ProtocolReply, ChangeBatch {
  /** More changes wait after this batch. */
  readonly more: boolean;
}

/** The module merged a pulled batch: the hub's tracker for the device may move to `through`. */
export interface AckRequest extends ProtocolRequest {
  readonly type: "ack";
  readonly token: string;
  readonly file: string;
  readonly after: number;
  readonly through: number;
}

export interface AckReply extends ProtocolReply {
  /** The hub's tracker was not at `after`: it starts again from the beginning. */
  readonly reset?: boolean;
}

// --- signals -----------------------------------------------------------------------------

export interface SignalRecord extends JsonObject {
  readonly seq: number;
  readonly body: JsonObject;
  /** Epoch seconds the signal was sent. */
  readonly time: number;
}

/**
 * Takes the signals after `after` (acknowledging every one up to it). With `wait` (ms), a hub
 * holding none answers when one arrives or a notefile changes for the device, or when the wait
 * is over (continuous mode).
 */
export interface SignalsRequest extends ProtocolRequest {
  readonly type: "signals";
  readonly token: string;
  readonly after: number;
  readonly wait?: number;
}

export interface SignalsReply extends ProtocolReply {
  readonly signals: readonly SignalRecord[];
  /** Notefiles that changed for the module meanwhile. */
  readonly files: readonly string[];
}

// --- close -------------------------------------------------------------------------------

export interface CloseRequest extends ProtocolRequest {
  readonly type: "close";
  readonly token: string;
  readonly why: string;
  readonly usage?: SessionUsage;
  /** Notefiles of the open reply's `deleted` the module has deleted: the hub forgets them. */
  readonly deleted?: readonly string[];
}

export type CloseReply = ProtocolReply;

/** What the module signs in `open`: proves it holds the key of the device it says it is. */
export function signedText(device: string, product: string, challenge: string): string {
  return `cardsim sync v1\n${device}\n${product}\n${challenge}`;
}

// --- firmware (DFU) ----------------------------------------------------------------------------

/**
 * Firmware updates ride on sync sessions: after the notefiles moved, the module asks what the hub
 * wants it to take (`firmware`), reads that image in byte ranges (`read`, over as many sessions as
 * it takes; a download resumes where the module's flash says it stopped) and reports its progress
 * (`dfu`), which the hub keeps in the device record's `dfu` object and the DFU history.
 *
 * Targets are named as the module names them: `user` is the host MCU's firmware (the API's `host`
 * type), `card` the module's own (`notecard`).
 */
export type DfuTarget = "user" | "card";
export const DFU_TARGETS: readonly DfuTarget[] = ["user", "card"];

/** The most bytes one `read` asks for (its reply stays far below the 1 MiB message limit). */
export const MAX_READ_BYTES = 256 * 1024;

/**
 * Consecutive errors after which a module gives an image up (it stays in `error` until the hub
 * offers another image or the host stops the update); the hub then marks the request failed.
 */
export const DFU_MAX_ERRORS = 3;

/** What an image is, as the hub describes it; the module shows it as `dfu.status` `body`. */
export interface FirmwareImage extends JsonObject {
  /** The stored name, unique in the project: the uploaded name with its upload time. */
  readonly name: string;
  /** The name it was uploaded under. */
  readonly source: string;
  /** `firmware` (a host image) or `notecard` (a module image). */
  readonly type: string;
  readonly length: number;
  /** MD5 of the whole image, lowercase hex: the module verifies the download against it. */
  readonly md5: string;
  /** CRC-32 (IEEE) of the whole image, as hosts that check a CRC read it. */
  readonly crc32: number;
  /** Epoch seconds of the upload and of the last metadata change. */
  readonly created: number;
  readonly modified: number;
  readonly version?: string;
  readonly notes?: string;
  /** The metadata the image carries (`firmware::info:` JSON) or the API set. */
  readonly info?: JsonObject;
}

/** What the hub wants the module to take; a target that is absent has nothing for it. */
export interface FirmwareRequest extends ProtocolRequest {
  readonly type: "firmware";
  readonly token: string;
}

export interface FirmwareReply extends ProtocolReply {
  /**
   * The image the hub wants each target to take. A target left out has none: a module holding or
   * downloading an image for it (that it has not finished with) drops it, the update was cancelled.
   */
  readonly user?: FirmwareImage;
  readonly card?: FirmwareImage;
}

/** `length` bytes of an image from `offset` (fewer at its end). */
export interface ReadRequest extends ProtocolRequest {
  readonly type: "read";
  readonly token: string;
  readonly target: DfuTarget;
  /** The image's stored name (`FirmwareImage.name`). */
  readonly name: string;
  readonly offset: number;
  readonly length: number;
}

export interface ReadReply extends ProtocolReply {
  readonly name: string;
  readonly offset: number;
  /** The bytes, base64; the module checks them against `md5` before it stores them. */
  readonly data: string;
  readonly md5: string;
}

/**
 * The device record's `dfu.user` / `dfu.card` object (the API's DFUState): the module's progress
 * in the hub's vocabulary (`mode` idle, downloading, ready, updating, completed, error).
 */
export interface DfuState extends JsonObject {
  readonly type: DfuTarget;
  readonly mode: string;
  readonly status?: string;
  /** The image's stored name, length and digests. */
  readonly file?: string;
  readonly length?: number;
  readonly md5?: string;
  readonly crc32?: number;
  /** Bytes the module holds of it. */
  readonly read?: number;
  /** Epoch seconds: the download began, the state last changed. */
  readonly began?: number;
  readonly updated?: number;
  /** Consecutive errors (`DFU_MAX_ERRORS` ends the attempt). */
  readonly errors?: number;
  /** The version the image carries, or the module runs after installing it. */
  readonly version?: string;
}

/** One step of an update as the module saw it (the hub's DFU history). */
export interface DfuUpdate extends JsonObject {
  /** Epoch seconds (0 while the module does not know the time). */
  readonly time: number;
  /** The module's `dfu.status` mode after the step, or `stopped` (the host stopped the update). */
  readonly mode: string;
  readonly status: string;
  /** The image it concerns. */
  readonly file?: string;
}

/**
 * The module's progress on one target: its state now and the steps since its last acknowledged
 * report, oldest first. Repeating a report is harmless (each step carries its sequence number).
 */
export interface DfuReportRequest extends ProtocolRequest {
  readonly type: "dfu";
  readonly token: string;
  readonly target: DfuTarget;
  readonly state: DfuState;
  readonly updates: readonly (DfuUpdate & { readonly seq: number })[];
}

export type DfuReportReply = ProtocolReply;

/** Error codes of the firmware messages (besides `SYNC_ERRORS`). */
export const DFU_ERRORS = {
  /** The image named does not exist (any more): the module gives the download up. */
  noImage: "dfu-noexist",
} as const;

/** Every message of the firmware section, as a hub dispatches them. */
export type DfuMessage = FirmwareRequest | ReadRequest | DfuReportRequest;
export const DFU_MESSAGE_TYPES: readonly DfuMessage["type"][] = ["firmware", "read", "dfu"];

// --- web requests (web.*) ------------------------------------------------------------------------

/**
 * A module's `web.*` request, proxied by the hub through a proxy route of the device's project
 * (docs/sync-protocol.md, "Web requests"). It rides on an open session (continuous mode: the module
 * is online) and is answered once the route's endpoint answered, or the request failed.
 *
 * Fragmented uploads (`web.post`/`web.put` with `offset` and `total`) are assembled by the hub, as
 * the hosted hub does: each fragment is one message, answered `100` until the last one makes the
 * upload whole; only then is the one HTTP request made.
 */
export const WEB_METHODS = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "PATCH",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "CONNECT",
] as const;
export type WebMethod = (typeof WEB_METHODS)[number];

export const WEB_LIMITS = {
  /** Most bytes of an answer one reply carries (a module asks for its binary buffer at most). */
  answer: 256 * 1024,
  /** Largest fragmented upload, bytes (the spec's 10 MB). */
  upload: 10_000_000,
  /** Longest timeout a request may ask for, seconds (a route's own timeout is capped alike). */
  seconds: 600,
  /** Longest route alias, `name` (path and query) and content type. */
  route: 256,
  name: 4096,
  content: 256,
} as const;

/** What a `web` message asks for (the message is these fields with its envelope). */
export interface WebRequestFields {
  /** The proxy route's alias (web.* `route`). */
  readonly route: string;
  readonly method: WebMethod;
  /** Appended to the route's URL (path and query). */
  readonly name?: string;
  /** Content-Type of `data` (application/json when absent). */
  readonly content?: string;
  /** The request body (a JSON body as its UTF-8 text), base64. */
  readonly data?: string;
  /** MD5 of `data`, lowercase hex: the hub refuses data that does not match (`{web-payload}`). */
  readonly md5?: string;
  /** This is one fragment of an upload of `total` bytes, at `offset`. */
  readonly fragment?: { readonly offset: number; readonly total: number };
  /** A ranged read: `length` bytes of the resource from `offset` (an HTTP Range). */
  readonly range?: { readonly offset: number; readonly length: number };
  /** Timeout in seconds (the route's own timeout applies when shorter). */
  readonly seconds: number;
  /** Answer bytes the module takes; a longer answer comes back cut, `truncated` set. */
  readonly max: number;
}

export interface WebRequestMessage extends ProtocolRequest, WebRequestFields {
  readonly type: "web";
  readonly token: string;
}

export interface WebReply extends ProtocolReply {
  /** The endpoint's HTTP status; 100 for a fragment the hub holds until the upload is whole. */
  readonly status: number;
  /** The answer's Content-Type, when it had one. */
  readonly content?: string;
  /** The answer's body (at most `max` bytes, or the range asked for), base64. */
  readonly data?: string;
  /** The answer was longer than `max`. */
  readonly truncated?: boolean;
  /** Fragments: bytes of the upload the hub holds now. */
  readonly received?: number;
}

/** Error codes of the `web` message (besides `SYNC_ERRORS`). */
export const WEB_ERRORS = {
  /** No enabled proxy route with that alias serves the device. */
  noRoute: "web-route",
  /** No complete answer within the timeout. */
  timeout: "web-timeout",
  /** The endpoint could not be reached, or did not answer HTTP. */
  unreachable: "web-unreachable",
  /** The route's JSONata failed on the request or the answer. */
  transform: "web-transform",
  /** The data does not match its `md5` (the module's own tag for it). */
  payload: "web-payload",
  /** A fragment that does not continue its upload (a gap, another total, past the end). */
  fragment: "web-fragment",
} as const;

/**
 * How long the hub may hold a message by design before it answers, ms: a `signals` wait, a web
 * request's timeout (0 for the others). A link waits that long beyond its own timeout.
 */
export function replyWaitMs(message: ProtocolRequest): number {
  if (message.type === "signals" && typeof message["wait"] === "number") return message["wait"];
  if (message.type === "web" && typeof message["seconds"] === "number") return message["seconds"] * 1000;
  return 0;
}
