import {
  compactStringTooLong,
  templateArrayTooLong,
  templateCompactKeyHint,
  templateEmptyArray,
  templateExpected,
  templateHintInvalid,
  templateStringTooLong,
  templateValueOutOfRange,
} from "../errors.js";
import type { ByteReader } from "./ByteReader.js";
import type { ByteWriter } from "./ByteWriter.js";
import { fromFloat16Bits, roundFloat16, roundFloat32, toFloat16Bits } from "./float16.js";
import { isJsonObject, type JsonObject, setMember } from "../../core/json.js";

/** What `note.template` stores for a notefile: the hint body and the template's options. */
export interface TemplateDefinition {
  /** Field names and type hints, in the order the binary record lays them out. */
  readonly body: JsonObject;
  /** Longest payload a note may carry, in bytes; absent when not limited by the template. */
  readonly length?: number;
  /** LoRa/NTN port, 1-100. */
  readonly port?: number;
  /** `compact` drops the time and location metadata from each note. */
  readonly format?: "compact";
  /**
   * Pending notes of this template are deleted, not sent, when the module syncs over the other
   * kind of transport (NTN instead of cellular/WiFi, or the reverse); for the sync engine.
   */
  readonly delete?: true;
}

type Field =
  | { readonly kind: "bool"; readonly bit: number }
  | { readonly kind: "int"; readonly size: number; readonly signed: boolean }
  | { readonly kind: "float"; readonly size: 2 | 4 | 8 }
  | { readonly kind: "string"; readonly fixed: number | undefined; readonly sampleBytes: number }
  | { readonly kind: "array"; readonly elements: readonly Field[] }
  | { readonly kind: "varray"; readonly element: Field }
  | {
      readonly kind: "object";
      readonly fields: readonly (readonly [string, Field])[];
      readonly keys: ReadonlySet<string>;
    };

type ObjectField = Extract<Field, { kind: "object" }>;

/** The compact-format keywords that put back metadata a compact template otherwise drops. */
const COMPACT_TIME = "_time";
const COMPACT_FLOAT_KEYS = new Set(["_lat", "_lon"]);
const COMPACT_INT_KEYS = new Set(["_ltime"]);

const MAX_STRING_BYTES = 0xffff;
const MAX_COMPACT_STRING_BYTES = 255;
const MAX_ARRAY_ELEMENTS = 0xffff;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The result of fitting a note body to a template. */
export interface FittedBody {
  /** The body exactly as the module stores and returns it; undefined when no body was given. */
  readonly body: JsonObject | undefined;
  /** The note's time after the template's rules (compact templates keep it only with `_time`). */
  readonly time: number;
  /** Paths of body fields the template has no place for (dropped, as the module does). */
  readonly dropped: readonly string[];
}

/**
 * A compiled notefile template: checks note bodies against the type hints, gives them the exact
 * form the module returns (integer widths, float precision, truncated strings, omit-empty), and
 * lays them out as a compact binary record for flash.
 *
 * Type hints (reference §4.2): `true` boolean; `11`-`18` signed and `21`-`28` unsigned integers
 * of 1-8 bytes (`1` = legacy 4-byte signed); `12.1`/`14.1`/`18.1` IEEE half/single/double
 * (`1.1` = legacy double); a numeric string `"N"` is a string of at most N bytes (truncated on
 * add), any other string a variable-length string; an array of one numeric hint is a
 * variable-length array of that type, any other array a fixed list of elements; an object nests.
 */
export class Template {
  readonly definition: TemplateDefinition;
  readonly compact: boolean;
  /** A compact template that keeps each note's time (`_time`). */
  readonly keepsTime: boolean;
  readonly #root: ObjectField;
  readonly #boolCount: number;
  readonly #boolBytes: number;

  private constructor(
    definition: TemplateDefinition,
    root: ObjectField,
    boolCount: number,
    keepsTime: boolean,
  ) {
    this.definition = definition;
    this.compact = definition.format === "compact";
    this.keepsTime = keepsTime;
    this.#root = root;
    this.#boolCount = boolCount;
    this.#boolBytes = Math.ceil(boolCount / 8);
  }

  /** Compiles a definition; throws a SimError naming the first field whose hint is not valid. */
  static compile(definition: TemplateDefinition): Template {
    const compact = definition.format === "compact";
    let bits = 0;
    let keepsTime = false;

    const parse = (hint: unknown, path: string, top: boolean, key: string): Field => {
      if (top && compact && key === COMPACT_TIME) {
        if (hint !== 14) throw templateCompactKeyHint(key, "14");
        keepsTime = true;
      }
      if (top && compact && COMPACT_FLOAT_KEYS.has(key) && !(typeof hint === "number" && floatSize(hint))) {
        throw templateCompactKeyHint(key, "12.1, 14.1 or 18.1");
      }
      if (top && compact && COMPACT_INT_KEYS.has(key) && hint !== 14) throw templateCompactKeyHint(key, "14");
      if (typeof hint === "boolean") return { kind: "bool", bit: bits++ };
      if (typeof hint === "number") {
        const f = numericField(hint);
        if (!f) throw templateHintInvalid(path, hint);
        return f;
      }
      if (typeof hint === "string") {
        const fixed = /^[0-9]+$/.test(hint) ? Number(hint) : 0;
        if (fixed > MAX_STRING_BYTES) throw templateHintInvalid(path, hint);
        return {
          kind: "string",
          fixed: fixed > 0 ? fixed : undefined,
          sampleBytes: encoder.encode(hint).length,
        };
      }
      if (Array.isArray(hint)) {
        if (hint.length === 0) throw templateEmptyArray(path);
        if (hint.length === 1 && typeof hint[0] === "number") {
          const element = numericField(hint[0]);
          if (!element) throw templateHintInvalid(`${path}[0]`, hint[0]);
          return { kind: "varray", element };
        }
        return { kind: "array", elements: hint.map((h, i) => parse(h, `${path}[${i}]`, false, "")) };
      }
      if (isJsonObject(hint)) return parseObject(hint, path, false);
      throw templateHintInvalid(path, hint);
    };
    const parseObject = (hints: JsonObject, path: string, top: boolean): ObjectField => {
      const fields: (readonly [string, Field])[] = [];
      for (const [key, hint] of Object.entries(hints)) {
        const field = parse(hint, path ? `${path}.${key}` : key, top, key);
        // `_time` is the note's own time slot, not a body field.
        if (!(top && compact && key === COMPACT_TIME)) fields.push([key, field]);
      }
      return { kind: "object", fields, keys: new Set(fields.map(([k]) => k)) };
    };

    const root = parseObject(definition.body, "", true);
    return new Template(definition, root, bits, keepsTime);
  }

  /** Longest payload a note may carry, or undefined when the template does not limit it. */
  get length(): number | undefined {
    return this.definition.length;
  }

  /**
   * Bytes one note takes on the way to the hub before compression, as `note.template` reports.
   * Layout (ours; the firmware's formula is not public, this one reproduces its documented
   * figures 40 and 72): a 1-byte header, a 2-byte offset of the variable part, unless compact an
   * 8-byte time and an 8-byte location, a 4-byte payload length, the fields (booleans as one
   * 8-byte flag word), then `length` payload bytes.
   */
  get bytes(): number {
    const header = this.compact ? 1 + 2 + 4 : 1 + 2 + 8 + 8 + 4;
    const time = this.keepsTime ? 4 : 0;
    const flags = this.#boolCount > 0 ? 8 : 0;
    return header + time + this.#fieldBytes(this.#root) + flags + (this.definition.length ?? 0);
  }

  #fieldBytes(field: Field): number {
    switch (field.kind) {
      case "bool":
        return 0;
      case "int":
      case "float":
        return field.size;
      case "string":
        return field.fixed ?? (this.compact ? 1 : 2) + field.sampleBytes;
      case "array":
        return field.elements.reduce((n, f) => n + this.#fieldBytes(f), 0);
      case "varray":
        return 2 + this.#fieldBytes(field.element);
      case "object":
        return field.fields.reduce((n, [, f]) => n + this.#fieldBytes(f), 0);
    }
  }

  /**
   * Fits a host's note body to the template: type checks (throwing the module's errors), the
   * values the fields can hold, omit-empty unless `full`. `time` is the note's time as the
   * module would stamp it; a compact template's `_time` value in the body replaces it.
   */
  fit(body: JsonObject | undefined, full: boolean, time: number): FittedBody {
    const dropped: string[] = [];
    let noteTime = this.compact && !this.keepsTime ? 0 : time;
    if (body === undefined) return { body: undefined, time: noteTime, dropped };
    if (this.keepsTime) {
      const given = body[COMPACT_TIME];
      if (given !== undefined && given !== null)
        noteTime = fitValue(
          { kind: "int", size: 4, signed: true },
          given,
          COMPACT_TIME,
          this.compact,
        ) as number;
    }
    const fitted = fitObject(this.#root, body, "", this.compact, dropped);
    if (this.compact) {
      const i = dropped.indexOf(COMPACT_TIME);
      if (i >= 0) dropped.splice(i, 1);
    }
    return { body: full ? fitted : omitEmpty(fitted), time: noteTime, dropped };
  }

  /** Writes a fitted body; fields it lacks (omitted as empty) are written as zero. */
  write(w: ByteWriter, body: JsonObject): void {
    const bitsAt = this.#boolBytes > 0 ? w.reserve(this.#boolBytes) : -1;
    writeField(w, bitsAt, this.#root, body);
  }

  /** Reads a body written by `write`; `full` keeps empty fields (the note was added with `full`). */
  read(r: ByteReader, full: boolean): JsonObject {
    const bits = this.#boolBytes > 0 ? r.bytes(this.#boolBytes) : NO_BITS;
    const body = readField(r, bits, this.#root) as JsonObject;
    return full ? body : omitEmpty(body);
  }
}

const NO_BITS = new Uint8Array(0);

function writeField(w: ByteWriter, bitsAt: number, field: Field, value: unknown): void {
  switch (field.kind) {
    case "bool":
      if (value === true) w.setBit(bitsAt, field.bit);
      return;
    case "int":
      w.int(typeof value === "number" ? value : 0, field.size);
      return;
    case "float": {
      const v = typeof value === "number" ? value : 0;
      if (field.size === 2) w.int(toFloat16Bits(v), 2);
      else if (field.size === 4) w.float32(v);
      else w.float64(v);
      return;
    }
    case "string":
      w.string(typeof value === "string" ? value : "", field.fixed);
      return;
    case "array": {
      const items = Array.isArray(value) ? value : NO_ITEMS;
      for (let i = 0; i < field.elements.length; i++) writeField(w, bitsAt, field.elements[i]!, items[i]);
      return;
    }
    case "varray": {
      const items = Array.isArray(value) ? value : NO_ITEMS;
      w.varint(items.length);
      for (const item of items) writeField(w, bitsAt, field.element, item);
      return;
    }
    case "object": {
      const obj = isJsonObject(value) ? value : NO_FIELDS;
      for (const [key, f] of field.fields) writeField(w, bitsAt, f, own(obj, key));
      return;
    }
  }
}

const NO_ITEMS: readonly unknown[] = [];
const NO_FIELDS: JsonObject = {};

function readField(r: ByteReader, bits: Uint8Array, field: Field): unknown {
  switch (field.kind) {
    case "bool":
      return (bits[field.bit >> 3]! & (1 << (field.bit & 7))) !== 0;
    case "int":
      return r.int(field.size, field.signed);
    case "float":
      if (field.size === 2) return shortestFloat16(fromFloat16Bits(r.int(2, false)));
      if (field.size === 4) return shortestFloat32(r.float32());
      return r.float64();
    case "string": {
      if (field.fixed === undefined) return decoder.decode(r.bytes(r.varint()));
      const bytes = r.bytes(field.fixed);
      let end = bytes.length;
      while (end > 0 && bytes[end - 1] === 0) end--;
      return decoder.decode(bytes.subarray(0, end));
    }
    case "array":
      return field.elements.map((f) => readField(r, bits, f));
    case "varray": {
      const n = r.varint();
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) items.push(readField(r, bits, field.element));
      return items;
    }
    case "object": {
      const obj: JsonObject = {};
      for (const [key, f] of field.fields) setMember(obj, key, readField(r, bits, f));
      return obj;
    }
  }
}

/** The field a numeric hint stands for, or undefined when the number is not a hint. */
function numericField(hint: number): Field | undefined {
  if (Number.isInteger(hint)) {
    if (hint === 1) return { kind: "int", size: 4, signed: true };
    if (hint >= 11 && hint <= 18) return { kind: "int", size: hint - 10, signed: true };
    if (hint >= 21 && hint <= 28) return { kind: "int", size: hint - 20, signed: false };
    return undefined;
  }
  const size = floatSize(hint);
  return size ? { kind: "float", size } : undefined;
}

/** `12.1`, `14.1`, `18.1` (and legacy `1.1`); like notelib, anything within N.0-N.2 counts. */
function floatSize(hint: number): 2 | 4 | 8 | undefined {
  const near = (base: number) => hint > base && hint < base + 0.2;
  if (near(12)) return 2;
  if (near(14)) return 4;
  if (near(18) || near(1)) return 8;
  return undefined;
}

function fitObject(
  field: ObjectField,
  value: JsonObject,
  path: string,
  compact: boolean,
  dropped: string[],
): JsonObject {
  const out: JsonObject = {};
  for (const [key, f] of field.fields) {
    setMember(out, key, fitValue(f, own(value, key), path ? `${path}.${key}` : key, compact, dropped));
  }
  for (const key of Object.keys(value)) if (!field.keys.has(key)) dropped.push(path ? `${path}.${key}` : key);
  return out;
}

function fitValue(
  field: Field,
  value: unknown,
  path: string,
  compact: boolean,
  dropped: string[] = [],
): unknown {
  const absent = value === undefined || value === null;
  switch (field.kind) {
    case "bool":
      if (absent) return false;
      if (typeof value !== "boolean") throw templateExpected("boolean", path);
      return value;
    case "int": {
      if (absent) return 0;
      if (typeof value !== "number" || !Number.isInteger(value)) throw templateExpected("integer", path);
      const bits = 8 * field.size;
      const min = field.signed ? -(2 ** (bits - 1)) : 0;
      const limit = field.signed ? 2 ** (bits - 1) : 2 ** bits;
      if (value < min || value >= limit) {
        throw templateValueOutOfRange(
          path,
          value,
          `${field.size}-byte ${field.signed ? "signed" : "unsigned"} integer`,
        );
      }
      return value === 0 ? 0 : value;
    }
    case "float": {
      if (absent) return 0;
      if (typeof value !== "number") throw templateExpected("number", path);
      if (field.size === 8) return value;
      const stored = field.size === 2 ? roundFloat16(value) : roundFloat32(value);
      if (!Number.isFinite(stored)) throw templateValueOutOfRange(path, value, `${field.size}-byte float`);
      // A decimal of at most 3 (half) or 6 (single) significant digits, in the normal range, is
      // the only one that short to land on its stored value, so it is what reads back.
      const digits = field.size === 2 ? 3 : 6;
      const normal = field.size === 2 ? 2 ** -14 : 2 ** -126;
      if (Math.abs(value) >= normal && Number(value.toPrecision(digits)) === value) return value;
      return field.size === 2 ? shortestFloat16(stored) : shortestFloat32(stored);
    }
    case "string": {
      if (absent) return "";
      if (typeof value !== "string") throw templateExpected("string", path);
      if (
        field.fixed !== undefined
          ? fitsAsIs(value, field.fixed)
          : !SURROGATE.test(value) &&
            value.length * 3 <= (compact ? MAX_COMPACT_STRING_BYTES : MAX_STRING_BYTES)
      ) {
        return value;
      }
      let bytes = encoder.encode(value);
      if (field.fixed !== undefined) {
        if (bytes.length > field.fixed) bytes = bytes.subarray(0, utf8Boundary(bytes, field.fixed));
        let end = bytes.length;
        while (end > 0 && bytes[end - 1] === 0) end--;
        bytes = bytes.subarray(0, end);
      } else if (compact && bytes.length > MAX_COMPACT_STRING_BYTES) {
        throw compactStringTooLong();
      } else if (bytes.length > MAX_STRING_BYTES) {
        throw templateStringTooLong(path, MAX_STRING_BYTES);
      }
      // Through UTF-8 and back, as the stored string reads back (lone surrogates become U+FFFD).
      return decoder.decode(bytes);
    }
    case "array": {
      if (absent)
        return field.elements.map((f, i) => fitValue(f, undefined, `${path}[${i}]`, compact, dropped));
      if (!Array.isArray(value)) throw templateExpected("array", path);
      if (value.length > field.elements.length) throw templateArrayTooLong(path, field.elements.length);
      return field.elements.map((f, i) => fitValue(f, value[i], `${path}[${i}]`, compact, dropped));
    }
    case "varray": {
      if (absent) return [];
      if (!Array.isArray(value)) throw templateExpected("array", path);
      if (value.length > MAX_ARRAY_ELEMENTS) throw templateArrayTooLong(path, MAX_ARRAY_ELEMENTS);
      return value.map((v, i) => fitValue(field.element, v, `${path}[${i}]`, compact, dropped));
    }
    case "object": {
      if (absent) return fitObject(field, {}, path, compact, dropped);
      if (!isJsonObject(value)) throw templateExpected("object", path);
      return fitObject(field, value, path, compact, dropped);
    }
  }
}

// eslint-disable-next-line no-control-regex
const PRINTABLE_ASCII = /^[\u0001-\u007f]*$/;
const SURROGATE = /[\ud800-\udfff]/;

/** A fixed-length string value that needs no cutting: ASCII, short enough, no NUL to trim. */
function fitsAsIs(value: string, fixed: number): boolean {
  return value.length <= fixed && PRINTABLE_ASCII.test(value);
}

/** An own member of a JSON object (never one inherited from Object.prototype). */
function own(obj: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Where to cut UTF-8 bytes at most `max` long without splitting a character. */
function utf8Boundary(bytes: Uint8Array, max: number): number {
  let cut = max;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/**
 * Omit-empty as the module applies it to templated notes: false, 0 and "" members of objects
 * are left out, nested objects are cleaned the same way, array elements are kept.
 */
export function omitEmpty(body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === false || value === 0 || value === "" || value === null || value === undefined) continue;
    setMember(out, key, isJsonObject(value) ? omitEmpty(value) : value);
  }
  return out;
}

/** True when a fitted body kept an empty member that omit-empty would have dropped. */
export function hasEmptyMember(body: JsonObject): boolean {
  for (const value of Object.values(body)) {
    if (value === false || value === 0 || value === "") return true;
    if (isJsonObject(value) && hasEmptyMember(value)) return true;
  }
  return false;
}

/** The shortest decimal that reads back as the same float32 (how the module prints it). */
function shortestFloat32(value: number): number {
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(value.toPrecision(p));
    if (roundFloat32(candidate) === value) return candidate === 0 ? 0 : candidate;
  }
  return value;
}

/** The shortest decimal that reads back as the same float16. */
function shortestFloat16(value: number): number {
  for (let p = 1; p <= 17; p++) {
    const candidate = Number(value.toPrecision(p));
    if (roundFloat16(candidate) === value) return candidate === 0 ? 0 : candidate;
  }
  return value;
}
