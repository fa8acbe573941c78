import { canonicalJson } from "../../../core/json.js";
import { crc32 } from "../../../core/crc32.js";

/**
 * `flash.json`, the superblock of a flash directory: says that the directory is a cardsim
 * flash, which format version wrote it and how big the flash is. Small, human-readable, and
 * always replaced atomically. `check` is the CRC-32 (hex) of the other fields as stable JSON, so
 * a damaged file is told apart from a newer one: a newer `version` with a good check stops the
 * module with a clear message instead of a silent reset; a bad check means damage, and the file
 * is rewritten.
 */
export const SUPERBLOCK_NAME = "flash.json";
export const SUPERBLOCK_FORMAT = "cardsim-flash";
export const FORMAT_VERSION = 1;

export interface Superblock {
  readonly version: number;
  /** Bytes of flash the module may use. */
  readonly capacity: number;
}

export type SuperblockCheck =
  | { readonly ok: true; readonly superblock: Superblock }
  /** Not JSON, a bad check, or fields missing: rewritten from what the journal says. */
  | { readonly ok: false; readonly problem: "damaged" }
  /** Another program's file: never overwritten. */
  | { readonly ok: false; readonly problem: "not-ours" }
  | { readonly ok: false; readonly problem: "too-new"; readonly version: number };

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

const hex = (n: number) => n.toString(16).padStart(8, "0");
const checkOf = (fields: Record<string, unknown>) => hex(crc32(encoder.encode(canonicalJson(fields))));

export function encodeSuperblock(superblock: Superblock): Uint8Array {
  const fields = { format: SUPERBLOCK_FORMAT, version: superblock.version, capacity: superblock.capacity };
  return encoder.encode(canonicalJson({ ...fields, check: checkOf(fields) }) + "\n");
}

export function checkSuperblock(bytes: Uint8Array): SuperblockCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(bytes));
  } catch {
    return { ok: false, problem: "damaged" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { ok: false, problem: "damaged" };
  const { check, ...fields } = parsed as Record<string, unknown>;
  const { format, version, capacity } = fields;
  // Without a check and with another format it is some other program's file, not a damaged one.
  if (check === undefined && format !== SUPERBLOCK_FORMAT) return { ok: false, problem: "not-ours" };
  if (check !== checkOf(fields) || format !== SUPERBLOCK_FORMAT) return { ok: false, problem: "damaged" };
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    return { ok: false, problem: "damaged" };
  if (version > FORMAT_VERSION) return { ok: false, problem: "too-new", version };
  if (typeof capacity !== "number" || !Number.isSafeInteger(capacity) || capacity <= 0)
    return { ok: false, problem: "damaged" };
  return { ok: true, superblock: { version, capacity } };
}
