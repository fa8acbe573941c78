import { isJsonObject, type JsonObject } from "../../core/json.js";

type JsonValue = unknown;
import type { EventRecord } from "../store/records.js";
import { isoTime } from "./views.js";

/** A field as GetNotefileSchemas gives it (SchemaProperty), with when it was last seen. */
interface Seen {
  type: "string" | "number" | "boolean" | "array" | "object";
  /** Receive time (epoch ms) of the newest event that had it. */
  at: number;
  properties?: Map<string, Seen>;
  items?: Seen;
}

function typeOf(value: JsonValue): Seen["type"] | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  if (t === "string" || t === "number" || t === "boolean") return t;
  return t === "object" ? "object" : undefined;
}

/** Folds `value` into what was seen at one place; the first type seen (the newest event's) wins. */
function see(into: Seen | undefined, value: JsonValue, at: number): Seen | undefined {
  const type = typeOf(value);
  if (!type) return into;
  const seen: Seen = into ?? { type, at };
  if (seen.type !== type) return seen;
  seen.at = Math.max(seen.at, at);
  if (type === "object") {
    seen.properties ??= new Map();
    for (const [name, member] of Object.entries(value as JsonObject)) {
      const next = see(seen.properties.get(name), member, at);
      if (next) seen.properties.set(name, next);
    }
  } else if (type === "array") {
    for (const item of value as unknown[]) seen.items = see(seen.items, item, at);
  }
  return seen;
}

function view(seen: Seen, name?: string): JsonObject {
  const at = isoTime(seen.at);
  const out: JsonObject = {
    ...(name !== undefined ? { name } : {}),
    type: seen.type,
    updated_at: at,
    updatedAt: at,
  };
  if (seen.properties) out["properties"] = [...seen.properties].map(([n, s]) => view(s, n));
  if (seen.items) out["items"] = [view(seen.items)];
  return out;
}

/**
 * What the hub has seen of each notefile's bodies: for each notefile the fields of its events'
 * bodies, their JSON types (nested objects and arrays too) and when each was last seen. A
 * module's templates shape the bodies it sends, so a templated notefile shows its template's
 * fields. Notefiles by name; fields in the order first met, newest events first.
 */
export function notefileSchemas(events: readonly EventRecord[]): JsonObject[] {
  const files = new Map<string, Seen>();
  for (const event of events) {
    const body = event.data["body"];
    if (!isJsonObject(body)) continue;
    const seen = see(files.get(event.file), body, Math.round(event.received * 1000));
    if (seen) files.set(event.file, seen);
  }
  return [...files]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([notefile, seen]) => ({
      notefile,
      properties: [...(seen.properties ?? new Map<string, Seen>())].map(([n, s]) => view(s, n)),
    }));
}
