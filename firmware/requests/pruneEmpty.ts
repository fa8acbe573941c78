import { isJsonObject, type JsonObject } from "../../core/json.js";

/** True for the values the module leaves out of replies: zero, false, "", null, {}, []. */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.keys(value).length === 0;
  return false;
}

/**
 * Drops empty top-level members (nested user data such as a note body is left as it is), except
 * the `keep` members a schema requires, which are sent as they are (`undefined` still drops).
 */
export function pruneEmpty(reply: JsonObject, keep: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(reply)) {
    const value = reply[key];
    if (!isEmptyValue(value) || (value !== undefined && keep.includes(key))) out[key] = value;
  }
  return out;
}
