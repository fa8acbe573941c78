import { crc32Text } from "../../core/crc32.js";

/**
 * The request/reply integrity field `"crc":"SSSS:CCCCCCCC"` that hosts append to every `req`:
 * SSSS is a 16-bit sequence number, CCCCCCCC the CRC-32 of the JSON text before the field was
 * added. The field is the tail of the object, after a comma (or a space when the object was empty).
 */
const TAIL = /([, ])"crc":"([0-9A-Fa-f]{4}):([0-9A-Fa-f]{8})"\}\s*$/;

export type RequestCrcCheck =
  | { readonly kind: "none" }
  | { readonly kind: "ok"; readonly sequence: number }
  | { readonly kind: "mismatch"; readonly sequence: number }
  /** A crc member exists but is not a well-formed tail. */
  | { readonly kind: "malformed" };

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0");

/** Checks the crc tail of a request line (trailing whitespace allowed). */
export function checkRequestCrc(line: string): RequestCrcCheck {
  const match = TAIL.exec(line);
  if (!match) return line.includes('"crc"') ? { kind: "malformed" } : { kind: "none" };
  const sequence = parseInt(match[2]!, 16);
  const expected = parseInt(match[3]!, 16) >>> 0;
  const original = line.slice(0, match.index) + "}";
  return crc32Text(original) === expected ? { kind: "ok", sequence } : { kind: "mismatch", sequence };
}

/** Appends the crc field to serialized JSON (as hosts do; upper-case hex, as note-c does). */
export function appendCrc(json: string, sequence: number): string {
  const field = `"crc":"${hex(sequence & 0xffff, 4)}:${hex(crc32Text(json), 8)}"}`;
  const body = json.slice(0, json.lastIndexOf("}"));
  return body.includes(":") ? `${body},${field}` : `${body} ${field}`;
}
