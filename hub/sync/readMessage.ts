import { decodeBase64 } from "../../core/base64.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { isValidNoteId, MAX_NOTEFILE_NAME } from "../../core/notefileNames.js";
import type {
  AckRequest,
  CloseRequest,
  DfuMessage,
  HelloRequest,
  OpenRequest,
  PullRequest,
  PushRequest,
  SignalsRequest,
  WebRequestMessage,
} from "../../protocol/messages.js";
import { BATCH_LIMITS, SYNC_ERRORS, WEB_LIMITS, WEB_METHODS } from "../../protocol/messages.js";
import type { NoteRecord } from "../../protocol/NoteRecord.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import { SyncRefusal } from "./SyncRefusal.js";

/** Every request the hub understands, checked. */
export type SyncRequest =
  | HelloRequest
  | OpenRequest
  | PushRequest
  | PullRequest
  | AckRequest
  | SignalsRequest
  | CloseRequest
  | DfuMessage
  | WebRequestMessage;

/** Notes in one batch (docs/sync-protocol.md, Limits). */
export const MAX_BATCH_NOTES = BATCH_LIMITS.notes;
/** How deep conflicts may nest inside a note (a conflict's own conflicts are flattened by merges). */
const MAX_CONFLICT_DEPTH = 4;
const MAX_TEXT = 256;
/** Notefiles a `close` may confirm deleting (the API deletes at most 1000 at a time). */
const MAX_DELETED_NOTEFILES = 1000;

const bad = (text: string): SyncRefusal => new SyncRefusal(SYNC_ERRORS.badRequest, text);

/** Typed reads of one object's fields; a missing or mistyped field is a `{bad-request}`. */
class Fields {
  constructor(
    private readonly o: JsonObject,
    private readonly where: string,
  ) {}

  #name(key: string): string {
    return this.where ? `${this.where}.${key}` : key;
  }

  has(key: string): boolean {
    return this.o[key] !== undefined;
  }

  value(key: string): unknown {
    return this.o[key];
  }

  keys(): string[] {
    return Object.keys(this.o);
  }

  string(key: string, options: { max?: number; optional?: boolean; nonEmpty?: boolean } = {}): string {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as string;
    if (typeof v !== "string") throw bad(`${this.#name(key)} must be a string`);
    if (v.length > (options.max ?? MAX_TEXT)) throw bad(`${this.#name(key)} is too long`);
    if (options.nonEmpty && v === "") throw bad(`${this.#name(key)} must not be empty`);
    return v;
  }

  number(key: string, options: { optional?: boolean; min?: number } = {}): number {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as number;
    if (typeof v !== "number" || !Number.isFinite(v)) throw bad(`${this.#name(key)} must be a number`);
    if (options.min !== undefined && v < options.min)
      throw bad(`${this.#name(key)} must be at least ${options.min}`);
    return v;
  }

  /** A change number, count or sequence: an integer from 0 up. */
  count(key: string, options: { optional?: boolean } = {}): number {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as number;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
      throw bad(`${this.#name(key)} must be an integer from 0 up`);
    }
    return v;
  }

  boolean(key: string, options: { optional?: boolean } = {}): boolean {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as boolean;
    if (typeof v !== "boolean") throw bad(`${this.#name(key)} must be true or false`);
    return v;
  }

  object(key: string, options: { optional?: boolean } = {}): JsonObject {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as JsonObject;
    if (!isJsonObject(v)) throw bad(`${this.#name(key)} must be an object`);
    return v;
  }

  fields(key: string, options: { optional?: boolean } = {}): Fields | undefined {
    const o = this.object(key, options);
    return o === undefined ? undefined : new Fields(o, this.#name(key));
  }

  array(key: string, max: number): unknown[] {
    const v = this.o[key];
    if (!Array.isArray(v)) throw bad(`${this.#name(key)} must be an array`);
    if (v.length > max) throw bad(`${this.#name(key)} holds more than ${max} items`);
    return v;
  }
}

function usage(f: Fields | undefined): void {
  if (!f) return;
  for (const key of ["bytes_sent", "bytes_received", "notes_sent", "notes_received"]) f.count(key);
}

/** `lat`, `lon` (a place on Earth) and, unless `timed` is false, `time`. */
function place(f: Fields | undefined, timed = true): void {
  if (!f) return;
  const lat = f.number("lat");
  const lon = f.number("lon");
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) throw bad("where is not a place on Earth");
  if (timed) f.number("time", { min: 0 });
}

/** Towers or access points in one triangulation scan, at most. */
const MAX_SCAN = 64;

function item(value: unknown, where: string): Fields {
  if (!isJsonObject(value)) throw bad(`${where} must be an object`);
  return new Fields(value, where);
}

function towerRecord(f: Fields): void {
  for (const key of ["mcc", "mnc", "lac", "cid"]) f.count(key);
  f.string("rat", { max: 32 });
  f.number("rssi");
  place(f, false);
}

/** A note record (protocol/NoteRecord.ts); `depth` counts nested conflicts. */
function note(value: unknown, where: string, depth: number): NoteRecord {
  if (!isJsonObject(value)) throw bad(`${where} must be a note object`);
  const f = new Fields(value, where);
  const id = f.string("id", { max: 256 });
  if (!isValidNoteId(id)) throw bad(`${where}.id is not a valid note ID`);
  f.object("body", { optional: true });
  const payload = f.string("payload", { optional: true, max: Number.MAX_SAFE_INTEGER });
  if (payload !== undefined && decodeBase64(payload) === undefined)
    throw bad(`${where}.payload is not base64`);
  f.number("when", { min: 0 });
  f.count("updates");
  f.string("endpoint", { max: 64 });
  if (f.has("deleted") && value.deleted !== true) throw bad(`${where}.deleted must be true when present`);
  f.count("change");
  const history = f.object("history", { optional: true });
  if (history) {
    const h = new Fields(history, `${where}.history`);
    for (const key of Object.keys(history)) h.count(key);
  }
  if (f.has("conflicts")) {
    if (depth >= MAX_CONFLICT_DEPTH) throw bad(`${where}.conflicts nest too deeply`);
    f.array("conflicts", MAX_BATCH_NOTES).forEach((c, i) => note(c, `${where}.conflicts[${i}]`, depth + 1));
  }
  place(f.fields("where", { optional: true }));
  return value as unknown as NoteRecord;
}

function context(f: Fields): void {
  f.object("firmware");
  const host = f.value("host");
  if (host !== undefined && typeof host !== "string" && !isJsonObject(host)) {
    throw bad("context.host must be a string or an object");
  }
  f.string("sn", { optional: true });
  f.string("sku");
  f.string("ordering_code", { optional: true });
  f.number("voltage");
  f.boolean("usb");
  f.number("temp", { optional: true });
  const radio = f.fields("radio")!;
  radio.string("rat", { max: 64 });
  radio.string("bearer", { max: 64 });
  for (const key of ["rssi", "rsrp", "rsrq", "sinr", "bars"]) radio.number(key);
  place(f.fields("where", { optional: true }));
  const tower = f.fields("tower", { optional: true });
  if (tower) towerRecord(tower);
  const tri = f.fields("triangulate", { optional: true });
  if (tri) {
    tri.string("mode", { max: 32 });
    tri.array("towers", MAX_SCAN).forEach((t, i) => towerRecord(item(t, `context.triangulate.towers[${i}]`)));
    tri.array("wifi", MAX_SCAN).forEach((a, i) => {
      const ap = item(a, `context.triangulate.wifi[${i}]`);
      ap.string("ssid", { max: 64 });
      ap.string("bssid", { max: 64 });
      ap.number("rssi");
      ap.number("channel");
    });
    tri.number("time", { min: 0 });
  }
  f.number("penalty_secs", { optional: true, min: 0 });
  f.count("failed_connects", { optional: true });
  usage(f.fields("usage", { optional: true }));
  const defaults = f.fields("env_defaults", { optional: true });
  for (const key of defaults?.keys() ?? []) defaults!.string(key, { max: 8192 });
  f.boolean("continuous", { optional: true });
  const energy = f.fields("energy", { optional: true });
  if (energy) {
    for (const key of ["hp_secs_total", "hp_secs_data", "hp_cycles_total", "hp_cycles_data"])
      energy.count(key);
    energy.number("power_mah", { min: 0 });
  }
}

/**
 * The request a message is, checked field by field (docs/sync-protocol.md, protocol/messages.ts).
 * Throws a `SyncRefusal`: `{protocol-version}` for a version other than ours, `{bad-request}` for
 * anything else wrong. Fields the hub does not know are ignored.
 */
export function readMessage(message: unknown): SyncRequest {
  if (!isJsonObject(message)) throw bad("a message is one JSON object");
  const f = new Fields(message, "");
  if (typeof message.v !== "number") throw bad("v (the protocol version) is missing");
  if (message.v !== PROTOCOL_VERSION) {
    throw new SyncRefusal(
      SYNC_ERRORS.version,
      `protocol version ${String(message.v)} is not spoken here: this hub speaks version ${PROTOCOL_VERSION}`,
    );
  }
  const type = f.string("type", { max: 32 });
  const token = () => f.string("token", { max: 128, nonEmpty: true });
  const file = () => f.string("file", { max: MAX_NOTEFILE_NAME, nonEmpty: true });
  switch (type) {
    case "hello":
      device(f);
      f.string("product", { nonEmpty: true });
      break;
    case "open":
      device(f);
      f.string("product", { nonEmpty: true });
      f.string("challenge", { nonEmpty: true });
      f.string("signature", { nonEmpty: true });
      f.string("key", { optional: true, max: 1024 });
      f.string("why", { max: 64 });
      f.string("tracker", { max: 128 });
      context(f.fields("context")!);
      break;
    case "push": {
      token();
      file();
      const after = f.count("after");
      const through = f.count("through");
      if (through < after) throw bad("through must not be below after");
      f.array("notes", MAX_BATCH_NOTES).forEach((n, i) => note(n, `notes[${i}]`, 0));
      break;
    }
    case "pull":
      token();
      file();
      if (f.has("max") && f.count("max") < 1) throw bad("max must be at least 1");
      break;
    case "ack": {
      token();
      file();
      if (f.count("through") < f.count("after")) throw bad("through must not be below after");
      break;
    }
    case "signals":
      token();
      f.count("after");
      f.number("wait", { optional: true, min: 0 });
      break;
    case "close":
      token();
      f.string("why", { max: 256 });
      usage(f.fields("usage", { optional: true }));
      if (f.has("deleted"))
        f.array("deleted", MAX_DELETED_NOTEFILES).forEach((name, i) => {
          if (typeof name !== "string" || name === "" || name.length > MAX_NOTEFILE_NAME)
            throw bad(`deleted[${i}] must be a notefile name`);
        });
      break;
    case "firmware":
    case "read":
    case "dfu":
      // Firmware messages: the session is the sync's to check, the rest the DFU service's to read.
      token();
      break;
    case "web":
      token();
      web(f);
      break;
    default:
      throw bad(`unknown message type: ${type.slice(0, 32)}`);
  }
  return message as unknown as SyncRequest;
}

const MD5 = /^[0-9a-f]{32}$/;

/** A `web` message's fields (protocol/messages.ts `WebRequestMessage`). */
function web(f: Fields): void {
  f.string("route", { nonEmpty: true, max: WEB_LIMITS.route });
  const method = f.string("method", { max: 16 });
  if (!(WEB_METHODS as readonly string[]).includes(method)) {
    throw bad(`method must be one of ${WEB_METHODS.join(", ")}`);
  }
  f.string("name", { optional: true, max: WEB_LIMITS.name });
  f.string("content", { optional: true, max: WEB_LIMITS.content });
  // A body (or a fragment of one) holds at most an upload's bytes: longer text is not decoded.
  const data = f.string("data", { optional: true, max: Math.ceil(WEB_LIMITS.upload / 3) * 4 });
  const bytes = data === undefined ? undefined : decodeBase64(data);
  if (data !== undefined && bytes === undefined) throw bad("data is not base64");
  if (bytes !== undefined && bytes.length > WEB_LIMITS.upload) {
    throw bad(`data may hold at most ${WEB_LIMITS.upload} bytes (a larger body is not sent)`);
  }
  const md5 = f.string("md5", { optional: true, max: 32 });
  if (md5 !== undefined && !MD5.test(md5)) throw bad("md5 must be 32 lowercase hexadecimal digits");
  const seconds = f.number("seconds", { min: 0 });
  if (seconds <= 0 || seconds > WEB_LIMITS.seconds) {
    throw bad(`seconds must be above 0 and at most ${WEB_LIMITS.seconds}`);
  }
  if (f.count("max") > WEB_LIMITS.answer) throw bad(`max must be at most ${WEB_LIMITS.answer}`);
  const fragment = f.fields("fragment", { optional: true });
  const range = f.fields("range", { optional: true });
  if (fragment && range) throw bad("a message is a fragment or a ranged read, not both");
  if (fragment) {
    const total = fragment.count("total");
    if (total < 1 || total > WEB_LIMITS.upload) throw bad(`fragment.total must be 1 to ${WEB_LIMITS.upload}`);
    if (fragment.count("offset") >= total) throw bad("fragment.offset must be below fragment.total");
  }
  if (range) {
    range.count("offset");
    const length = range.count("length");
    if (length < 1 || length > WEB_LIMITS.answer) throw bad(`range.length must be 1 to ${WEB_LIMITS.answer}`);
  }
}

function device(f: Fields): void {
  const uid = f.string("device", { nonEmpty: true, max: 80 });
  if (!DEVICE_UID.test(uid)) throw bad(`device is not a DeviceUID: ${uid}`);
}
