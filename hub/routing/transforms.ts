import type { JsonObject } from "../../core/json.js";
import { decodeBase64 } from "../../core/base64.js";
import { eventDocument } from "../events/eventDocument.js";
import type { EventRecord } from "../store/records.js";
import { JsonataError, type JsonataCache, type JsonataResult } from "../events/JsonataCache.js";

/** The members the hub adds to a stored event's document. */
const IDENTITY = ["event", "device", "file", "received", "when", "session"];

/**
 * `JSON.stringify(eventDocument(e))`, made without copying the document (every event of an
 * untransformed route passes here): the hub's members first, then the stored ones.
 */
export function eventJson(e: EventRecord): string {
  const data = e.data;
  for (const name of IDENTITY) if (name in data) return JSON.stringify(eventDocument(e));
  let head = `{"event":${JSON.stringify(e.uid)},"device":${JSON.stringify(e.deviceUid)},"file":${JSON.stringify(e.file)},"received":${JSON.stringify(e.received)},"when":${JSON.stringify(e.whenSec)}`;
  if (e.sessionUid) head += `,"session":${JSON.stringify(e.sessionUid)}`;
  const rest = JSON.stringify(data);
  return rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`;
}

/** What a transform made of an event: bytes (or text, sent as UTF-8) to send, or a reason to send nothing. */
export type Transformed =
  | { kind: "send"; body: Uint8Array | string; contentType: string }
  /** `$doNotRoute()` was called: the event is not for this route (nothing logged). */
  | { kind: "skip" }
  /**
   * The transform failed or produced nothing: logged, never retried (it would fail again); with
   * `limit`, its JSONata was stopped at a limit (time, memory, result size): logged and retried
   * as a failed attempt is, until the retries are used up.
   */
  | { kind: "error"; text: string; limit?: boolean };

const json = (value: unknown): Transformed => ({
  kind: "send",
  body: JSON.stringify(value),
  contentType: "application/json",
});

/** `{"a":{"b":1},"c":[2]}` → `{"a.b":1,"c.0":2}`; empty objects and arrays stay as values. */
export function flatten(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  const walk = (node: unknown, prefix: string): void => {
    if (node !== null && typeof node === "object") {
      const entries = Array.isArray(node)
        ? node.map((v, i) => [String(i), v] as const)
        : Object.entries(node);
      if (entries.length === 0 && prefix !== "") {
        out[prefix] = node;
        return;
      }
      for (const [key, v] of entries) walk(v, prefix === "" ? key : `${prefix}.${key}`);
      return;
    }
    out[prefix] = node;
  };
  walk(value, "");
  return out;
}

/** The members `simple` keeps: who, which notefile, when, where, and the content. */
const SIMPLE_FIELDS = [
  "event",
  "device",
  "sn",
  "product",
  "app",
  "file",
  "when",
  "received",
  "best_location_type",
  "best_lat",
  "best_lon",
  "best_location",
  "best_country",
  "best_timezone",
  "body",
  "payload",
];

export function simple(doc: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const name of SIMPLE_FIELDS) if (doc[name] !== undefined) out[name] = doc[name];
  if (out.body === undefined) out.body = {};
  return out;
}

/**
 * The bytes a route sends for an event, per its `transform` (docs/hub.md, Routes): the event JSON
 * (no format), its `body`, its decoded `payload`, the event flattened, a simple subset, or a
 * JSONata expression's result (a string is sent as text, anything else as JSON).
 */
export function transformEvent(
  event: EventRecord,
  transform: JsonObject | undefined,
  cache: JsonataCache,
): Transformed | Promise<Transformed> {
  const format = typeof transform?.format === "string" ? transform.format : "";
  switch (format) {
    case "":
    case "none":
    case "json":
      return { kind: "send", body: eventJson(event), contentType: "application/json" };
    case "body":
      return json(event.data.body ?? {});
    case "payload": {
      const payload = typeof event.data.payload === "string" ? event.data.payload : "";
      const bytes = decodeBase64(payload);
      if (!bytes) return { kind: "error", text: "the event's payload is not base64" };
      return { kind: "send", body: bytes, contentType: "application/octet-stream" };
    }
    case "flatten":
      return json(flatten(eventDocument(event)));
    case "simple":
      return json(simple(eventDocument(event)));
    case "jsonata": {
      const source = typeof transform?.jsonata === "string" ? transform.jsonata : "";
      if (source.trim() === "")
        return { kind: "error", text: "transform format jsonata needs an expression" };
      return viaJsonata(source, eventDocument(event), cache);
    }
    case "bridge":
      return {
        kind: "error",
        text: "transform format bridge is for Azure IoT routes, which this simulator does not deliver",
      };
    default:
      return { kind: "error", text: `unknown transform format ${format}` };
  }
}

async function viaJsonata(source: string, doc: JsonObject, cache: JsonataCache): Promise<Transformed> {
  let result: JsonataResult;
  try {
    result = await cache.evaluate(source, doc);
  } catch (error) {
    if (error instanceof JsonataError && error.limit)
      return { kind: "error", text: error.message, limit: true };
    return { kind: "error", text: (error as Error).message };
  }
  if (result.doNotRoute) return { kind: "skip" };
  if (result.value === undefined) {
    return { kind: "error", text: "the JSONata expression produced no value: nothing was sent" };
  }
  if (typeof result.value === "string") {
    return { kind: "send", body: result.value, contentType: "text/plain; charset=utf-8" };
  }
  // The worker's JSON text of the value, as JSON.stringify(value) would make it here.
  if (result.json === undefined) {
    return { kind: "error", text: "the JSONata expression produced no JSON value: nothing was sent" };
  }
  return { kind: "send", body: result.json, contentType: "application/json" };
}
