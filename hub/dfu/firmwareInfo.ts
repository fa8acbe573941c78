import { crc32 } from "../../core/crc32.js";
import type { JsonObject } from "../../core/json.js";
import { md5Hex } from "../md5.js";

/**
 * The marker firmware builds embed before a JSON object describing themselves (org, product,
 * description, version or firmware, ver_major..., built, builder, target), null-terminated; the
 * hub reads it from uploaded images (the convention of the vendor's host examples).
 */
export const FIRMWARE_INFO_MARKER = "firmware::info:";

/** The longest embedded description read. */
const MAX_INFO_BYTES = 8192;

/** The JSON object an image carries after `firmware::info:`, or undefined when it has none. */
export function embeddedFirmwareInfo(content: Uint8Array): JsonObject | undefined {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(FIRMWARE_INFO_MARKER, from, "latin1");
    if (at < 0) return undefined;
    const start = at + FIRMWARE_INFO_MARKER.length;
    const text = bytes.subarray(start, Math.min(bytes.length, start + MAX_INFO_BYTES)).toString("utf8");
    const parsed = leadingObject(text);
    if (parsed) return parsed;
    from = start;
  }
}

/** The JSON object at the start of `text` (up to its closing brace), if one is there. */
function leadingObject(text: string): JsonObject | undefined {
  if (!text.startsWith("{")) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      try {
        const value = JSON.parse(text.slice(0, i + 1)) as unknown;
        return value && typeof value === "object" && !Array.isArray(value)
          ? (value as JsonObject)
          : undefined;
      } catch {
        return undefined;
      }
    } else if (c === "\u0000") return undefined;
  }
  return undefined;
}

/** The version an embedded description gives: `version`, `firmware`, or its version numbers. */
export function versionOf(info: JsonObject | undefined | null): string | undefined {
  if (!info) return undefined;
  if (typeof info["version"] === "string" && info["version"] !== "") return info["version"];
  if (typeof info["firmware"] === "string" && info["firmware"] !== "") return info["firmware"];
  const numbers = ["ver_major", "ver_minor", "ver_patch", "ver_build"].map((k) => info[k]);
  const parts: number[] = [];
  for (const n of numbers) {
    if (typeof n !== "number" || !Number.isInteger(n)) break;
    parts.push(n);
  }
  return parts.length > 0 ? parts.join(".") : undefined;
}

/** A string member of a description, when it has one. */
export function infoString(info: JsonObject | undefined | null, key: string): string | undefined {
  const v = info?.[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** MD5 (lowercase hex) and CRC-32 (IEEE) of an image. */
export function digests(content: Uint8Array): { md5: string; crc32: number } {
  return { md5: md5Hex(content), crc32: crc32(content) };
}

/**
 * The name an upload is stored under: the uploaded name with the upload time (UTC) before its
 * extension, as the hosted hub names them (`app.bin` -> `app$20260324190911.bin`).
 */
export function storedFirmwareName(source: string, ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const stamp =
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  const dot = source.lastIndexOf(".");
  return dot > 0 ? `${source.slice(0, dot)}$${stamp}${source.slice(dot)}` : `${source}$${stamp}`;
}
