import { jsonTooDeep, MAX_JSON_DEPTH } from "../../../core/jsonDepth.js";
import type { JsonObject } from "../../../core/json.js";

/**
 * A JSON object kept in a row (note body, event, session, signal), read back so that no row can
 * make a read fail. A row the hub cannot serve — nested deeper than MAX_JSON_DEPTH (hubs before
 * the cap stored such bodies, and serializing them overflows the stack), not JSON, or not an
 * object — comes back as `{"_unreadable": why}` in its place: listings keep working for
 * everyone, and the note can still be replaced or deleted (docs/hub.md, "Stored JSON").
 */
export function storedJson(text: string): JsonObject {
  if (jsonTooDeep(text)) return unreadable(`stored JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return unreadable("stored JSON is damaged (not valid JSON)");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return unreadable("stored JSON is not an object");
  }
  return value as JsonObject;
}

const unreadable = (why: string): JsonObject => ({ _unreadable: why });
