import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { jsonTooDeep } from "../../core/jsonDepth.js";
import { md5Hex } from "../../core/md5.js";
import {
  SYNC_ERRORS,
  WEB_ERRORS,
  WEB_LIMITS,
  WEB_METHODS,
  type WebMethod,
  type WebReply,
} from "../../protocol/messages.js";
import {
  argumentNotSupportedOnVariant,
  argumentRequired,
  argumentsIncompatible,
  binaryBad,
  binaryEmpty,
  webAnswerTooBig,
  webFileNotLocal,
  webFragmentEmpty,
  webFragmentPastTotal,
  webFragmentRefused,
  webHubRefused,
  webLinkFailed,
  webMaxInvalid,
  webMethodInvalid,
  webNoRoute,
  webOffline,
  webOffsetInvalid,
  webOffsetNeedsTotal,
  webPayloadDamaged,
  webPayloadNotBase64,
  webSecondsInvalid,
  webStatusInvalid,
  webTimeout,
  webTotalInvalid,
  webTransformFailed,
  webUnreachable,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import { HubLinkError } from "../radio/HubLink.js";
import type { SimError } from "../SimError.js";
import { newNoteId, storeNote } from "../storage/noteOps.js";
import { checkNoteId, checkNotefileName } from "../storage/notefileNames.js";
import { SyncFailure } from "../sync/SyncEngine.js";
import type { VariantName } from "../Variant.js";
import type { WebCall, WebOutcome } from "../web/WebAgent.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** Variants with web requests: every one but LoRa (the vendor's web transactions guide). */
const WEB_VARIANTS: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];
/** Variants with a binary buffer (`binary:true`). */
const BINARY_VARIANTS: readonly VariantName[] = ["cell", "cell-wifi", "wifi"];
/** The most bytes of an answer a reply carries (spec Limits: web response size). */
export const WEB_REPLY_BYTES = 8192;
/** `seconds` when a request gives none (spec: 90 s). */
export const WEB_DEFAULT_SECONDS = 90;

const MD5 = /^[0-9a-fA-F]{32}$/;
const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The arguments a request takes and the members its reply has, by the request of the public
 * schemas it follows: `web` with GET, HEAD, OPTIONS, TRACE or CONNECT as `web.get`, POST and PATCH
 * as `web.post`, PUT as `web.put`, DELETE as `web.delete`.
 */
type Shape = "get" | "post" | "put" | "delete";

function shapeOf(method: WebMethod): Shape {
  switch (method) {
    case "POST":
    case "PATCH":
      return "post";
    case "PUT":
      return "put";
    case "DELETE":
      return "delete";
    default:
      return "get";
  }
}

/** Where the answer goes. */
type AnswerTo =
  /** `body` (a JSON object) or `payload` (anything else). */
  | "reply"
  /** The binary buffer, whatever it is (`web.get binary:true`). */
  | "buffer"
  /** `body` when it is a JSON object that fits a reply, else the binary buffer (`web.post binary:true`). */
  | "buffer-unless-json";

/** A request read and checked, ready to be made. */
interface Plan {
  readonly name: string;
  readonly call: WebCall;
  readonly answerTo: AnswerTo;
  /** The reply carries the MD5 of a payload it returns (`web.post`, `web.put`, `web.delete`). */
  readonly withStatus: boolean;
  /** The answer bytes the module takes (what `max` in the call says), and where they would go. */
  readonly limit: number;
  readonly async: boolean;
  /** Where an asynchronous request keeps its outcome (a `.dbx` note), if anywhere. */
  readonly file?: string;
  readonly note?: string;
}

/** `web.get`, `web.post`, `web.put`, `web.delete`, or `web` with its `method` (undefined here). */
async function webRequest(ctx: RequestContext, fixed: WebMethod | undefined): Promise<JsonObject> {
  const plan = readPlan(ctx, fixed);
  const { module } = ctx;
  if (!module.web.online) throw webOffline();
  if (plan.async) {
    module.web.background(plan.call, (outcome) => keepOutcome(module, plan, outcome));
    return {};
  }
  let reply: WebReply;
  try {
    reply = await module.awaitIo(() => module.web.request(plan.call));
  } catch (error) {
    throw failureOf(plan, error);
  }
  return replyOf(module, plan, reply);
}

function readPlan(ctx: RequestContext, fixed: WebMethod | undefined): Plan {
  const { args, module, name } = ctx;
  let method = fixed;
  if (method === undefined) {
    const given = args.string("method");
    if (!given) throw argumentRequired(name, "method");
    const upper = given.toUpperCase();
    if (!(WEB_METHODS as readonly string[]).includes(upper)) throw webMethodInvalid(given, WEB_METHODS);
    method = upper as WebMethod;
  }
  const shape = shapeOf(method);
  const route = args.string("route");
  if (!route) throw argumentRequired(name, "route");
  const path = args.string("name") || undefined;
  const content = args.string("content") || undefined;
  const seconds = secondsOf(ctx);

  const body = shape === "delete" ? undefined : args.object("body");
  const uploads = shape === "post" || shape === "put";
  const payload = uploads ? args.string("payload") || undefined : undefined;
  const binary = shape === "delete" ? false : args.bool("binary");
  if (body !== undefined && payload !== undefined) throw argumentsIncompatible(name, "body", "payload");
  if (binary && body !== undefined) throw argumentsIncompatible(name, "binary", "body");
  if (binary && payload !== undefined) throw argumentsIncompatible(name, "binary", "payload");
  if (binary && !BINARY_VARIANTS.includes(module.variant.name))
    throw argumentNotSupportedOnVariant("binary", module.variant.radio);

  let data: Uint8Array | undefined;
  if (body !== undefined) data = encoder.encode(JSON.stringify(body));
  else if (payload !== undefined) {
    data = decodeBase64(payload);
    if (!data) throw webPayloadNotBase64(name);
  } else if (binary && uploads) {
    const buffer = module.binary;
    if (buffer.fault !== undefined) throw binaryBad(buffer.fault);
    if (buffer.length === 0) throw binaryEmpty();
    data = buffer.read(0, buffer.length);
  }

  let md5: string | undefined;
  let fragment: WebCall["fragment"];
  if (uploads) {
    const status = args.string("status") || undefined;
    if (status !== undefined && !MD5.test(status)) throw webStatusInvalid(name);
    if ((args.bool("verify") || status !== undefined) && data) md5 = status?.toLowerCase() ?? md5Hex(data);
    fragment = fragmentOf(ctx, data);
  }

  const answerTo: AnswerTo = !binary
    ? "reply"
    : shape === "get"
      ? "buffer"
      : uploads
        ? "buffer-unless-json"
        : "reply";
  const capacity = answerTo === "reply" ? WEB_REPLY_BYTES : Math.min(module.binary.max, WEB_LIMITS.answer);
  const max = args.int("max");
  if (max !== undefined && max < -1) throw webMaxInvalid(name, max);
  const limit = max !== undefined && max > 0 ? Math.min(max, capacity) : capacity;
  let range: WebCall["range"];
  if (shape === "get") {
    // A part of the resource: from `offset`, `max` bytes (binary reads come in parts).
    const offset = args.int("offset");
    if (offset !== undefined && offset < 0) throw webOffsetInvalid(name, offset);
    const ranged = offset !== undefined || (binary && max !== undefined && max > 0);
    if (ranged && limit > 0) range = { offset: offset ?? 0, length: limit };
  }

  const async = shape === "get" ? false : args.bool("async");
  const file = args.string("file") || undefined;
  const note = args.string("note") || undefined;
  if (file !== undefined) {
    const kind = checkNotefileName(file);
    if (kind.direction !== "local" || kind.queue) throw webFileNotLocal(name, file);
  }
  if (note !== undefined) checkNoteId(note);

  const call: WebCall = {
    route,
    method,
    ...(path !== undefined ? { name: path } : {}),
    ...(content !== undefined ? { content } : {}),
    ...(data !== undefined ? { data: encodeBase64(data) } : {}),
    ...(md5 !== undefined ? { md5 } : {}),
    ...(fragment ? { fragment } : {}),
    ...(range ? { range } : {}),
    seconds,
    max: limit,
  };
  return {
    name,
    call,
    // An asynchronous answer is kept in a note, never in the binary buffer.
    answerTo: async ? "reply" : answerTo,
    withStatus: fixed !== undefined && shape !== "get",
    limit: async ? Math.min(limit, WEB_REPLY_BYTES) : limit,
    async,
    ...(file !== undefined ? { file } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

/** `seconds`: the timeout, 90 by default (absent, 0 or -1), at most the protocol's 600. */
function secondsOf({ args, name }: RequestContext): number {
  const seconds = args.int("seconds");
  if (seconds === undefined || seconds === 0 || seconds === -1) return WEB_DEFAULT_SECONDS;
  if (seconds < 0) throw webSecondsInvalid(name, seconds);
  return Math.min(seconds, WEB_LIMITS.seconds);
}

/** `offset` and `total` of a fragmented upload (`web.post`, `web.put`), or undefined for a whole one. */
function fragmentOf({ args, name }: RequestContext, data: Uint8Array | undefined): WebCall["fragment"] {
  const total = args.int("total");
  const offset = args.int("offset");
  if (total === undefined || total === 0 || total === -1) {
    if (offset !== undefined && offset !== 0 && offset !== -1) throw webOffsetNeedsTotal(name);
    return undefined;
  }
  if (total < 1 || total > WEB_LIMITS.upload) throw webTotalInvalid(name, total, WEB_LIMITS.upload);
  const at = offset === undefined || offset === -1 ? 0 : offset;
  if (at < 0) throw webOffsetInvalid(name, at);
  if (!data || data.length === 0) throw webFragmentEmpty(name);
  if (at + data.length > total) throw webFragmentPastTotal(name, at, data.length, total);
  return { offset: at, total };
}

/** What the hub's refusal (or the link's failure) means to the host. */
function failureOf(plan: Plan, error: unknown): SimError {
  const { name } = plan;
  if (error instanceof HubLinkError) return webLinkFailed(name, error.message);
  if (!(error instanceof SyncFailure)) throw error;
  const match = /^\{([a-z0-9-]+)\}\s*([\s\S]*)$/.exec(error.message);
  const detail = match?.[2] ?? error.message;
  switch (match?.[1]) {
    case WEB_ERRORS.noRoute:
      return webNoRoute(name, plan.call.route);
    case WEB_ERRORS.timeout:
      return webTimeout(name, detail);
    case WEB_ERRORS.unreachable:
      return webUnreachable(name, detail);
    case WEB_ERRORS.transform:
      return webTransformFailed(name, detail);
    case WEB_ERRORS.payload:
      return webPayloadDamaged(name);
    case WEB_ERRORS.fragment:
      return webFragmentRefused(name, detail);
    case SYNC_ERRORS.session:
      // The session the module held is gone: it is not online any more.
      return webOffline();
  }
  // No session held (sync.online): the module is not online.
  if (error.message.includes("{hub-not-connected}")) return webOffline();
  return webHubRefused(name, error.message);
}

/** The answer's bytes as a JSON object, when they are one that fits a reply. */
function jsonObjectOf(bytes: Uint8Array): JsonObject | undefined {
  if (bytes.length === 0 || bytes.length > WEB_REPLY_BYTES) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  if (jsonTooDeep(text)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The reply a host waiting for the request gets. */
function replyOf(module: ModuleContext, plan: Plan, reply: WebReply): JsonObject {
  const bytes = (reply.data === undefined ? undefined : decodeBase64(reply.data)) ?? new Uint8Array(0);
  const toBuffer = plan.answerTo !== "reply";
  if (reply.truncated || bytes.length > plan.limit) throw webAnswerTooBig(plan.name, plan.limit, toBuffer);
  const out: JsonObject = { result: reply.status };
  if (plan.answerTo === "buffer") {
    module.binary.fill(bytes);
    out["cobs"] = module.binary.cobsLength();
    out["length"] = bytes.length;
    return out;
  }
  const json = jsonObjectOf(bytes);
  if (json) out["body"] = json;
  else if (bytes.length > 0 && plan.answerTo === "buffer-unless-json") {
    module.binary.fill(bytes);
    out["cobs"] = module.binary.cobsLength();
    out["length"] = bytes.length;
    out["status"] = md5Hex(bytes);
  } else if (bytes.length > 0) {
    out["payload"] = encodeBase64(bytes);
    if (plan.withStatus) out["status"] = md5Hex(bytes);
  }
  return out;
}

/**
 * An asynchronous request ended: its outcome becomes note `note` (a new ID when none was given)
 * of the `.dbx` named by `file`, its body the reply the host would have had (`result`, `body`,
 * `status`, or `err`), a payload answer the note's payload. Without `file` it is dropped.
 */
function keepOutcome(module: ModuleContext, plan: Plan, outcome: WebOutcome): void {
  let body: JsonObject;
  let payload: Uint8Array | undefined;
  try {
    if ("error" in outcome) throw failureOf(plan, outcome.error);
    const reply = replyOf(module, plan, outcome.reply);
    const { payload: answer, ...rest } = reply;
    body = rest;
    if (typeof answer === "string") payload = decodeBase64(answer);
  } catch (error) {
    body = { err: String((error as Error)?.message ?? error) };
  }
  if (!plan.file) {
    module.log.info("an asynchronous web request ended; no file keeps its answer", {
      request: plan.name,
      ...body,
    });
    return;
  }
  const notebox = module.notebox;
  const file = notebox.ensureFile(plan.file);
  const id = plan.note ?? newNoteId(file, module.random);
  storeNote(notebox, file, id, { body, payload, time: module.noteTime(), template: undefined });
}

const handler =
  (method: WebMethod | undefined) =>
  (ctx: RequestContext): Promise<JsonObject> =>
    webRequest(ctx, method);

/** `web`, `web.get`, `web.post`, `web.put`, `web.delete`: HTTP through the hub's proxy routes. */
export const webRequests: RequestTable = {
  web: { handler: handler(undefined), variants: WEB_VARIANTS },
  "web.get": { handler: handler("GET"), variants: WEB_VARIANTS },
  "web.post": { handler: handler("POST"), variants: WEB_VARIANTS },
  "web.put": { handler: handler("PUT"), variants: WEB_VARIANTS },
  "web.delete": { handler: handler("DELETE"), variants: WEB_VARIANTS },
};
