import type { JsonObject } from "../core/json.js";
import type { ProtocolReply, ProtocolRequest } from "./envelope.js";
import type { FirmwareOffer } from "./firmwareMessages.js";
import type { SessionRadio } from "./sessionRadio.js";
import type { ChangeBatch, PushReply } from "./transferMessages.js";

/**
 * The messages that open and close a session: `hello`, `open` (with the context the module sends
 * and what the hub answers about the device) and `close`.
 */

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
  /** The WiFi access point a session over WiFi runs through (the session record's `ssid`, `bssid`). */
  readonly wifi?: { readonly ssid: string; readonly bssid?: string };
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
  /**
   * The challenge of the `hello` reply, and the module's signature of `signedText(...)`: a full
   * proof of the device's key. Absent when the open resumes with a `ticket` instead.
   */
  readonly challenge?: string;
  readonly signature?: string;
  /**
   * A session ticket an earlier `open` reply of this hub gave (resumption: no `hello`, no
   * signature). Sent only over TLS, and only to the hub that issued it.
   */
  readonly ticket?: string;
  /**
   * The module's public key (PEM). A module sends it at every `open`; the hub takes it only at the
   * device's first session in trust-on-first-use mode, and ignores it once it holds a key.
   */
  readonly key?: string;
  readonly why: SessionTrigger;
  /** The module's tracker session for this hub (empty before the first session). */
  readonly tracker: string;
  readonly context: SessionContext;
  /**
   * The module asks for the hub's firmware offer (a `firmware` reply's images) in the `open`
   * reply, which spares it the `firmware` message of a session with no firmware news to report.
   */
  readonly firmware_offer?: boolean;
  /**
   * The module's first batch of changes, a `push` folded into the open: the hub merges it in the
   * open's transaction (and answers `pushed`) unless the open resets the trackers or lists deleted
   * notefiles; then the module pushes it as before. Hubs before it ignore it.
   */
  readonly push?: ChangeBatch;
  /**
   * The module's `close`, folded into the open: the hub closes the session with this open (and
   * answers `closed`) when it has nothing for the module this session (below, `OpenClose`).
   */
  readonly close?: OpenClose;
}

/**
 * A `close` an `open` carries. The hub closes the session with the open when the push (if any)
 * was taken, the trackers were not reset, no notefile was deleted, no signal waits, the firmware
 * offer asked for names no image, and no notefile has changes for the module (unless `pull` is
 * false: this session downloads nothing). Else the session stays open and the module goes on.
 */
export interface OpenClose extends JsonObject {
  readonly why: string;
  /**
   * The module's count of the session before this open (a `hello`, a refused ticket); the hub adds
   * the open's own bytes, both ways, and the notes of its push, as it counts them.
   */
  readonly usage?: SessionUsage;
  /** False: the session downloads nothing, so notefiles with changes for the module do not keep it open. */
  readonly pull?: boolean;
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
  /**
   * A session ticket (hubs before resumption, and sessions without TLS, leave it out): the module
   * presents it at its next `open` instead of a `hello` and a signature, until `ticket_expires`
   * (hub time, epoch ms). It is bound to the device, the product and the device's key.
   */
  readonly ticket?: string;
  readonly ticket_expires?: number;
  /**
   * The images the hub wants the module to take, as a `firmware` reply would say, when the `open`
   * asked for them (`firmware_offer`); absent otherwise, and from hubs before it.
   */
  readonly firmware?: FirmwareOffer;
  /** The open's `push` was merged: what its `push` reply would have said (absent: not taken). */
  readonly pushed?: Pick<PushReply, "merged">;
  /** The open's `close` was taken: the session is over, its token spent (absent: still open). */
  readonly closed?: boolean;
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

/**
 * True for the message a session starts with, the one that opens the connection: `hello`, or an
 * `open` resumed with a ticket (no hello before it).
 */
export function startsSession(request: { readonly type: string; readonly [key: string]: unknown }): boolean {
  return request.type === "hello" || (request.type === "open" && request["challenge"] === undefined);
}
