import { isJsonObject, type JsonObject } from "../../core/json.js";
import { ServiceError } from "../ServiceError.js";

/**
 * The readers of a route's fields (routeSettings.ts): each takes a value as a request body gives
 * it and answers it checked and normalised, or throws the ServiceError that says what is wrong.
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

export function str(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(field, "must be a string");
  return value;
}

export function boolOf(value: unknown, field: string): boolean {
  // The hosted service's own examples echo `disabled` as the text "false".
  if (value === "true") return true;
  if (value === "false") return false;
  if (typeof value !== "boolean") throw invalid(field, "must be true or false");
  return value;
}

export function intOf(value: unknown, field: string): number {
  if (typeof value === "string" && /^\d{1,15}$/.test(value)) return Number(value);
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(field, "must be a non-negative integer");
  }
  return value;
}

export function strings(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw invalid(field, "must be an array of strings");
  }
  if (value.length > 1000) throw invalid(field, "may hold at most 1000 entries");
  return value as string[];
}

export function uri(value: unknown, field: string): string {
  const text = str(value, field).trim();
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

export function headers(value: unknown, field: string): Record<string, string> {
  if (!isJsonObject(value)) throw invalid(field, "must be an object of header names to strings");
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw invalid(`${field}.${name}`, "is not a header name");
    if (typeof v !== "string" || /[\r\n\0]/.test(v)) {
      throw invalid(`${field}.${name}`, "must be a string without line breaks");
    }
    out[name] = v;
  }
  return out;
}

export function filter(value: unknown, field: string, previous: JsonObject | undefined): JsonObject {
  if (!isJsonObject(value)) throw invalid(field, "must be an object");
  const out: JsonObject = { ...(previous ?? {}) };
  if (value.type !== undefined && value.type !== null) {
    const type = str(value.type, `${field}.type`);
    if (!(FILTER_TYPES as readonly string[]).includes(type)) {
      throw invalid(`${field}.type`, "must be one of all, include, exclude");
    }
    out.type = type;
  }
  if (value.system_notefiles !== undefined && value.system_notefiles !== null) {
    out.system_notefiles = boolOf(value.system_notefiles, `${field}.system_notefiles`);
  }
  if (value.files !== undefined && value.files !== null) out.files = strings(value.files, `${field}.files`);
  return out;
}

export function transform(value: unknown, field: string, previous: JsonObject | undefined): JsonObject {
  if (!isJsonObject(value)) throw invalid(field, "must be an object");
  const out: JsonObject = { ...(previous ?? {}) };
  if (value.format !== undefined && value.format !== null) {
    const format = str(value.format, `${field}.format`);
    if (!TRANSFORM_FORMATS.includes(format)) {
      throw invalid(
        `${field}.format`,
        "must be one of jsonata, flatten, simple, body, payload, bridge or empty",
      );
    }
    out.format = format;
  }
  for (const name of ["jsonata", "jsonata_in"]) {
    if (value[name] !== undefined && value[name] !== null) {
      const text = str(value[name], `${field}.${name}`);
      if (text.length > 65_536) throw invalid(`${field}.${name}`, "may be at most 65536 characters");
      out[name] = text;
    }
  }
  return out;
}
