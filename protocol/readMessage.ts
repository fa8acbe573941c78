import { decodeBase64 } from "../core/base64.js";
import { isJsonObject } from "../core/json.js";
import { MAX_NOTEFILE_NAME } from "../core/notefileNames.js";
import { DEVICE_UID } from "./deviceUid.js";
import { Fields, isPlainNote, item, readNote, readPlace, readUsage } from "./fields.js";
import { SYNC_ERRORS } from "./envelope.js";
import type { DfuMessage } from "./firmwareMessages.js";
import type { CloseRequest, HelloRequest, OpenRequest } from "./sessionMessages.js";
import type { SignalsRequest } from "./signalMessages.js";
import { BATCH_LIMITS, type AckRequest, type PullRequest, type PushRequest } from "./transferMessages.js";
import { WEB_LIMITS, WEB_METHODS, type WebRequestMessage } from "./webMessages.js";
import { readSessionRadio } from "./sessionRadio.js";
import { SyncRefusal } from "./SyncRefusal.js";
import { PROTOCOL_VERSION } from "./version.js";

/**
 * What a hub takes from a module: every request of the protocol, checked (the module's end reads
 * the hub's replies with protocol/readReply.ts; both share the field readers of fields.ts).
 */

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
/** Notefiles a `close` may confirm deleting (the API deletes at most 1000 at a time). */
const MAX_DELETED_NOTEFILES = 1000;

const OPTIONAL = { optional: true } as const;
const NON_EMPTY = { nonEmpty: true } as const;
const TYPE = { max: 32 } as const;
const TOKEN = { max: 128, nonEmpty: true } as const;
const FILE = { max: MAX_NOTEFILE_NAME, nonEmpty: true } as const;

const bad = (text: string): SyncRefusal => new SyncRefusal(SYNC_ERRORS.badRequest, text);

/** Towers or access points in one triangulation scan, at most. */
const MAX_SCAN = 64;

function towerRecord(f: Fields): void {
  for (const key of ["mcc", "mnc", "lac", "cid"]) f.count(key);
  f.string("rat", { max: 32 });
  f.number("rssi");
  readPlace(f, false);
}

function context(f: Fields): void {
  f.object("firmware");
  const host = f.value("host");
  if (host !== undefined && typeof host !== "string" && !isJsonObject(host)) {
    throw bad("context.host must be a string or an object");
  }
  f.string("sn", OPTIONAL);
  f.string("sku");
  f.string("ordering_code", OPTIONAL);
  f.number("voltage");
  f.boolean("usb");
  f.number("temp", OPTIONAL);
  readSessionRadio(f.fields("radio"));
  readPlace(f.fields("where", OPTIONAL));
  const tower = f.fields("tower", OPTIONAL);
  if (tower) towerRecord(tower);
  const wifi = f.fields("wifi", OPTIONAL);
  if (wifi) {
    wifi.string("ssid", { max: 64 });
    wifi.string("bssid", { max: 64, optional: true });
  }
  const tri = f.fields("triangulate", OPTIONAL);
  if (tri) {
    tri.string("mode", { max: 32 });
    tri
      .array("towers", MAX_SCAN)
      .forEach((t, i) => towerRecord(item(tri, t, `context.triangulate.towers[${i}]`)));
    tri.array("wifi", MAX_SCAN).forEach((a, i) => {
      const ap = item(tri, a, `context.triangulate.wifi[${i}]`);
      ap.string("ssid", { max: 64 });
      ap.string("bssid", { max: 64 });
      ap.number("rssi");
      ap.number("channel");
    });
    tri.number("time", { min: 0 });
  }
  f.number("penalty_secs", { optional: true, min: 0 });
  f.count("failed_connects", OPTIONAL);
  readUsage(f.fields("usage", OPTIONAL));
  f.stringMap("env_defaults", { optional: true, max: 8192 });
  f.boolean("continuous", OPTIONAL);
  const energy = f.fields("energy", OPTIONAL);
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
  const f = new Fields(message, "", bad);
  if (typeof message.v !== "number") throw bad("v (the protocol version) is missing");
  if (message.v !== PROTOCOL_VERSION) {
    throw new SyncRefusal(
      SYNC_ERRORS.version,
      `protocol version ${String(message.v)} is not spoken here: this hub speaks version ${PROTOCOL_VERSION}`,
    );
  }
  const type = f.string("type", TYPE);
  switch (type) {
    case "hello":
      device(f);
      f.string("product", NON_EMPTY);
      break;
    case "open":
      device(f);
      f.string("product", NON_EMPTY);
      // A full proof (challenge and signature), or a resumption with a ticket.
      if (f.has("ticket") && !f.has("challenge")) f.string("ticket", { nonEmpty: true, max: 256 });
      else {
        f.string("challenge", NON_EMPTY);
        f.string("signature", NON_EMPTY);
      }
      f.string("key", { optional: true, max: 1024 });
      f.string("why", { max: 64 });
      f.string("tracker", { max: 128 });
      context(f.fields("context"));
      f.boolean("firmware_offer", OPTIONAL);
      openFolds(f);
      break;
    case "push":
      token(f);
      batch(f);
      break;
    case "pull":
      token(f);
      file(f);
      if (f.has("max") && f.count("max") < 1) throw bad("max must be at least 1");
      break;
    case "ack": {
      token(f);
      file(f);
      if (f.count("through") < f.count("after")) throw bad("through must not be below after");
      break;
    }
    case "signals":
      token(f);
      f.count("after");
      f.number("wait", { optional: true, min: 0 });
      break;
    case "close":
      token(f);
      f.string("why", { max: 256 });
      readUsage(f.fields("usage", OPTIONAL));
      if (f.has("deleted")) f.strings("deleted", MAX_DELETED_NOTEFILES, MAX_NOTEFILE_NAME, "a notefile name");
      break;
    case "firmware":
    case "read":
    case "dfu":
      // Firmware messages: the session is the sync's to check, the rest the DFU service's to read.
      token(f);
      break;
    case "web":
      token(f);
      web(f);
      break;
    default:
      throw bad(`unknown message type: ${type.slice(0, 32)}`);
  }
  return message as unknown as SyncRequest;
}

/** A batch of changes (`push`, and the `push` an `open` carries): its notefile, positions and notes. */
function batch(f: Fields): void {
  f.string("file", { max: MAX_NOTEFILE_NAME, nonEmpty: true });
  const after = f.count("after");
  const through = f.count("through");
  if (through < after) throw bad(`${f.name("through")} must not be below after`);
  const notes = f.array("notes", MAX_BATCH_NOTES);
  for (let i = 0; i < notes.length; i++)
    if (!isPlainNote(notes[i])) readNote(f, notes[i], f.name(`notes[${i}]`));
}

/** The `push` and `close` an `open` may carry (sessionMessages.ts `OpenRequest`). */
function openFolds(f: Fields): void {
  const push = f.fields("push", OPTIONAL);
  if (push) batch(push);
  const close = f.fields("close", OPTIONAL);
  if (!close) return;
  close.string("why", { max: 256 });
  readUsage(close.fields("usage", OPTIONAL));
  close.boolean("pull", OPTIONAL);
}

const MD5 = /^[0-9a-f]{32}$/;

/** A `web` message's fields (protocol/webMessages.ts `WebRequestMessage`). */
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
  const fragment = f.fields("fragment", OPTIONAL);
  const range = f.fields("range", OPTIONAL);
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

function token(f: Fields): void {
  f.string("token", TOKEN);
}

function file(f: Fields): void {
  f.string("file", FILE);
}
