import { isJsonObject } from "../core/json.js";
import { MAX_NOTEFILE_NAME } from "../core/notefileNames.js";
import { Fields, isPlainNote, item, readNote, type Fault } from "./fields.js";
import type { ProtocolReply, ProtocolRequest } from "./envelope.js";
import { DFU_TARGETS, type DfuReportReply, type FirmwareReply, type ReadReply } from "./firmwareMessages.js";
import type { CloseReply, HelloReply, OpenReply } from "./sessionMessages.js";
import type { SignalsReply } from "./signalMessages.js";
import { BATCH_LIMITS, type AckReply, type PullReply, type PushReply } from "./transferMessages.js";
import { WEB_LIMITS, type WebReply } from "./webMessages.js";
import { PROTOCOL_VERSION } from "./version.js";

/**
 * What a module takes from its hub: the reply to each request of the protocol, checked field by
 * field before the module acts on any of it (the hub's end reads requests with
 * protocol/readMessage.ts; both share the field readers of fields.ts). Fields the module does not
 * know are ignored, as the hub ignores a message's.
 */

/** A reply the module cannot read: `text` names the field (`notes[2].id must be a string`). */
export class ReplyError extends Error {
  override readonly name = "ReplyError";

  constructor(
    /** The request type the reply answers. */
    readonly type: string,
    readonly text: string,
  ) {
    super(`the hub's ${type.slice(0, 32)} reply cannot be read: ${text}`);
  }
}

/** The reply each request type has (an error reply, `{v, err}`, answers any of them). */
export interface ReplyOf {
  hello: HelloReply;
  open: OpenReply;
  push: PushReply;
  pull: PullReply;
  ack: AckReply;
  signals: SignalsReply;
  close: CloseReply;
  firmware: FirmwareReply;
  read: ReadReply;
  dfu: DfuReportReply;
  web: WebReply;
}

/** Most notefiles one `open` or `signals` reply names (the hub names the device's notefiles). */
const MAX_FILES = 10_000;
/** Most signals one `signals` reply carries. */
const MAX_SIGNALS = 10_000;
/** Environment values and image texts are the hub's own and may be long. */
const LONG_TEXT = 1_000_000;

/** The device's environment (`open`, and `signals` of a held session): three scopes and when. */
function readEnvironment(env: Fields): void {
  for (const scope of ["device", "fleet", "project"]) env.stringMap(scope, { max: LONG_TEXT });
  env.number("modified", { min: 0 });
}

/** The images a `firmware` reply (or an `open` reply's `firmware`) offers, per target. */
function readFirmwareOffer(f: Fields): void {
  for (const target of DFU_TARGETS) {
    const image = f.fields(target, { optional: true });
    if (!image) continue;
    for (const key of ["name", "source", "type", "md5"]) image.string(key, { max: LONG_TEXT });
    image.count("length");
    for (const key of ["crc32", "created", "modified"]) image.number(key);
    for (const key of ["version", "notes"]) image.string(key, { optional: true, max: LONG_TEXT });
    image.object("info", { optional: true });
  }
}

type Reader = (f: Fields, request: ProtocolRequest) => void;

const READERS: { readonly [T in keyof ReplyOf]: Reader } = {
  hello(f) {
    f.number("time", { min: 0 });
    f.string("challenge", { nonEmpty: true, max: LONG_TEXT });
    f.boolean("known", { optional: true });
  },
  open(f) {
    f.string("session", { max: LONG_TEXT });
    f.string("token", { nonEmpty: true, max: LONG_TEXT });
    f.number("time", { min: 0 });
    f.string("tracker", { max: LONG_TEXT });
    f.boolean("reset");
    const where = f.fields("where", { optional: true });
    if (where) {
      for (const key of ["lat", "lon", "minutes"]) where.number(key, { optional: true });
      for (const key of ["country", "area", "zone"]) where.string(key, { optional: true });
    }
    readEnvironment(f.fields("env"));
    f.strings("files", MAX_FILES, MAX_NOTEFILE_NAME, "a notefile name");
    if (f.has("deleted")) f.strings("deleted", MAX_FILES, MAX_NOTEFILE_NAME, "a notefile name");
    f.count("signals");
    if (f.has("ticket")) {
      f.string("ticket", { nonEmpty: true, max: LONG_TEXT });
      f.number("ticket_expires", { min: 0 });
    }
    const offer = f.fields("firmware", { optional: true });
    if (offer) readFirmwareOffer(offer);
    f.fields("pushed", { optional: true })?.count("merged");
    f.boolean("closed", { optional: true });
  },
  push(f) {
    f.count("merged");
  },
  pull(f, request) {
    // The batch goes into the notefile it names: it must be the one asked for.
    const file = f.string("file", { max: MAX_NOTEFILE_NAME });
    if (file !== request["file"])
      throw f.fault(`file must be ${String(request["file"])}, the notefile asked for`);
    const after = f.count("after");
    if (f.count("through") < after) throw f.fault("through must not be below after");
    const notes = f.array("notes", BATCH_LIMITS.notes);
    for (let i = 0; i < notes.length; i++) if (!isPlainNote(notes[i])) readNote(f, notes[i], `notes[${i}]`);
    f.boolean("more");
  },
  ack(f) {
    f.boolean("reset", { optional: true });
  },
  signals(f) {
    f.array("signals", MAX_SIGNALS).forEach((s, i) => {
      const signal = item(f, s, `signals[${i}]`);
      signal.count("seq");
      signal.object("body");
      signal.number("time");
    });
    f.strings("files", MAX_FILES, MAX_NOTEFILE_NAME, "a notefile name");
    const env = f.fields("env", { optional: true });
    if (env) readEnvironment(env);
  },
  close() {},
  firmware: readFirmwareOffer,
  read(f) {
    // What the bytes are worth (their MD5, their offset) is the download's to check.
    f.string("name", { max: LONG_TEXT });
    f.count("offset");
    f.string("data", { max: Number.MAX_SAFE_INTEGER });
    f.string("md5", { max: LONG_TEXT });
  },
  dfu() {},
  web(f) {
    f.number("status");
    f.string("content", { optional: true, max: LONG_TEXT });
    f.string("data", { optional: true, max: Math.ceil(WEB_LIMITS.answer / 3) * 4 + 4 });
    f.boolean("truncated", { optional: true });
    f.count("received", { optional: true });
  },
};

/**
 * The hub's reply to `request`, checked: a reply with `err` (a refusal, a failure) as it is, any
 * other with every field of its type (protocol/messages.ts) present and of its type. Throws a
 * `ReplyError` naming the first field that is not.
 */
export function readReply<T extends keyof ReplyOf>(
  request: ProtocolRequest & { readonly type: T },
  reply: unknown,
): ReplyOf[T] | (ProtocolReply & { readonly err: string });
export function readReply(request: ProtocolRequest, reply: unknown): ProtocolReply;
export function readReply(request: ProtocolRequest, reply: unknown): ProtocolReply {
  const type = request.type;
  const fault = faultOf(type);
  if (!isJsonObject(reply)) throw fault("a reply is one JSON object");
  const f = new Fields(reply, "", fault, true);
  if (f.has("err")) {
    f.string("err", { max: LONG_TEXT });
    return reply as ProtocolReply;
  }
  if (reply["v"] !== PROTOCOL_VERSION)
    throw fault(`v must be ${PROTOCOL_VERSION}, the protocol version the module speaks`);
  const reader = Object.hasOwn(READERS, type) ? READERS[type as keyof ReplyOf] : undefined;
  if (!reader) throw fault(`${type.slice(0, 32)} is no request of the protocol`);
  reader(f, request);
  return reply as ProtocolReply;
}

/** Each request type's fault, made once (a closure made for every reply is named by tsx: a defineProperty). */
const FAULTS = new Map<string, Fault>();

function faultOf(type: string): Fault {
  let fault = FAULTS.get(type);
  if (fault) return fault;
  fault = (text: string) => new ReplyError(type, text);
  // Only the protocol's types are kept: whatever else a caller names is not remembered.
  if (Object.hasOwn(READERS, type)) FAULTS.set(type, fault);
  return fault;
}
