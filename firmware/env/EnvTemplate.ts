import { envTemplateHintInvalid } from "../errors.js";
import type { JsonObject } from "../../core/json.js";

/** Configuration record key of the `env.template` body (a JSON object of type hints). */
export const ENV_TEMPLATE_KEY = "env.template";

const INT_HINTS = new Map<number, number>([
  [1, 4], // legacy: 4-byte signed
  [11, 1],
  [12, 2],
  [13, 3],
  [14, 4],
  [15, 5],
  [16, 6],
  [17, 7],
  [18, 8],
  [21, 1],
  [22, 2],
  [23, 3],
  [24, 4],
  [25, 5],
  [26, 6],
  [27, 7],
  [28, 8],
]);
const FLOAT_HINTS = new Map<number, number>([
  [1.1, 4], // legacy: 4-byte float
  [12.1, 2],
  [14.1, 4],
  [18.1, 8],
]);
const encoder = new TextEncoder();

/**
 * Bytes one record of an environment template takes, checking every hint. Hints follow the note
 * template type hints (boolean; 11-18 / 21-28 signed and unsigned integers; 12.1 / 14.1 / 18.1
 * floats; "N" a fixed N-byte string). Plain sample values are read as the type they show, as
 * the request's documentation samples do: other integers 4 bytes, other numbers 8 bytes, other
 * strings variable length (a length byte plus the sample's bytes). The real formula is not
 * published; this one is documented in docs/module.md.
 */
export function envTemplateBytes(body: JsonObject): number {
  let bytes = 0;
  for (const [name, hint] of Object.entries(body)) {
    if (typeof hint === "boolean") bytes += 1;
    else if (typeof hint === "number" && Number.isFinite(hint)) {
      bytes += INT_HINTS.get(hint) ?? FLOAT_HINTS.get(hint) ?? (Number.isInteger(hint) ? 4 : 8);
    } else if (typeof hint === "string") {
      bytes += /^[1-9]\d{0,3}$/.test(hint) ? Number(hint) : 1 + encoder.encode(hint).length;
    } else throw envTemplateHintInvalid(name);
  }
  return bytes;
}
