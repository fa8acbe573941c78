import type { JsonObject } from "../../core/json.js";
import { ServiceError } from "../ServiceError.js";

/**
 * The normalisers of a route's fields (routeSettings.ts): each takes a value whose type the API's
 * schema has checked (hub/api/routeBody.ts) and answers it as stored, or throws the ServiceError
 * that says what is wrong with it beyond its type.
 */

export const FILTER_TYPES = ["", "all", "include", "exclude", "inclusion", "exclusion"] as const;
export const TRANSFORM_FORMATS = [
  "",
  "none",
  "json",
  "bridge",
  "jsonata",
  "flatten",
  "simple",
  "body",
  "payload",
];

export const invalid = (field: string, why: string): ServiceError =>
  new ServiceError("invalid", field, `${field} ${why}`);

/** `true`/`false`, or the texts "true"/"false" (the hosted service's own examples echo them). */
export const boolOf = (value: unknown): boolean => value === true || value === "true";

/** An integer, or its digits as text. */
export const intOf = (value: unknown): number => Number(value);

export function uri(value: string, field: string): string {
  const text = value.trim();
  if (text === "") return "";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, "must be an absolute URL");
  }
  if (!/^[a-z][a-z0-9+.-]*:$/i.test(url.protocol)) throw invalid(field, "must be an absolute URL");
  return text;
}

/** Only the members named and given change; the others keep their stored values. */
function merged(names: string[], value: JsonObject, previous: JsonObject | undefined): JsonObject {
  const out: JsonObject = { ...(previous ?? {}) };
  for (const name of names) if (value[name] !== undefined && value[name] !== null) out[name] = value[name];
  return out;
}

export function filter(value: JsonObject, previous: JsonObject | undefined): JsonObject {
  const out = merged(["type", "system_notefiles", "files"], value, previous);
  if (out.system_notefiles !== undefined) out.system_notefiles = boolOf(out.system_notefiles);
  return out;
}

export const transform = (value: JsonObject, previous: JsonObject | undefined): JsonObject =>
  merged(["format", "jsonata", "jsonata_in"], value, previous);
