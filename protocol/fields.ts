import { decodeBase64 } from "../core/base64.js";
import { isJsonObject, type JsonObject } from "../core/json.js";
import { isValidNoteId } from "../core/notefileNames.js";
import type { NoteRecord } from "./NoteRecord.js";
import type { SessionUsage } from "./sessionMessages.js";
import { BATCH_LIMITS } from "./transferMessages.js";

/**
 * The field readers both ends of the sync protocol share: protocol/readMessage.ts (what the hub
 * takes from a module) and protocol/readReply.ts (what a module takes from its hub). Each reader
 * throws the error its end reports, made by `fault` from a text that names the field.
 */
export type Fault = (text: string) => Error;

/** The longest text a field holds unless its reader says otherwise. */
const MAX_TEXT = 256;
/** How deep conflicts may nest inside a note (a conflict's own conflicts are flattened by merges). */
const MAX_CONFLICT_DEPTH = 4;

/** Typed reads of one object's fields; a missing or mistyped field is a fault naming it. */
export class Fields {
  constructor(
    private readonly o: JsonObject,
    private readonly where: string,
    readonly fault: Fault,
    /**
     * Whole-object faults (a place off the Earth) name the object by its path (`notes[1].where`);
     * else by `where` alone, as the hub's refusals always have.
     */
    readonly paths = false,
  ) {}

  /** Where this object is in the message (`context.radio`; empty at the top). */
  get path(): string {
    return this.where;
  }

  /** The field's name as errors give it (`context.radio.rssi`, `notes[2].id`). */
  name(key: string): string {
    return this.where ? `${this.where}.${key}` : key;
  }

  has(key: string): boolean {
    return this.o[key] !== undefined;
  }

  value(key: string): unknown {
    return this.o[key];
  }

  keys(): string[] {
    return Object.keys(this.o);
  }

  string(key: string, options: { max?: number; optional?: boolean; nonEmpty?: boolean } = {}): string {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as string;
    if (typeof v !== "string") throw this.fault(`${this.name(key)} must be a string`);
    if (v.length > (options.max ?? MAX_TEXT)) throw this.fault(`${this.name(key)} is too long`);
    if (options.nonEmpty && v === "") throw this.fault(`${this.name(key)} must not be empty`);
    return v;
  }

  number(key: string, options: { optional?: boolean; min?: number } = {}): number {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as number;
    if (typeof v !== "number" || !Number.isFinite(v)) throw this.fault(`${this.name(key)} must be a number`);
    if (options.min !== undefined && v < options.min)
      throw this.fault(`${this.name(key)} must be at least ${options.min}`);
    return v;
  }

  /** A change number, count or sequence: an integer from 0 up. */
  count(key: string, options: { optional?: boolean } = {}): number {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as number;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
      throw this.fault(`${this.name(key)} must be an integer from 0 up`);
    }
    return v;
  }

  boolean(key: string, options: { optional?: boolean } = {}): boolean {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as boolean;
    if (typeof v !== "boolean") throw this.fault(`${this.name(key)} must be true or false`);
    return v;
  }

  object(key: string, options: { optional?: boolean } = {}): JsonObject {
    const v = this.o[key];
    if (v === undefined && options.optional) return undefined as unknown as JsonObject;
    if (!isJsonObject(v)) throw this.fault(`${this.name(key)} must be an object`);
    return v;
  }

  fields(key: string, options: { optional?: true }): Fields | undefined;
  fields(key: string): Fields;
  fields(key: string, options: { optional?: boolean } = {}): Fields | undefined {
    const o = this.object(key, options);
    return o === undefined ? undefined : new Fields(o, this.name(key), this.fault, this.paths);
  }

  array(key: string, max: number): unknown[] {
    const v = this.o[key];
    if (!Array.isArray(v)) throw this.fault(`${this.name(key)} must be an array`);
    if (v.length > max) throw this.fault(`${this.name(key)} holds more than ${max} items`);
    return v;
  }

  /** An array of texts (notefile names ...), each non-empty and at most `maxText` long. */
  strings(key: string, max: number, maxText: number, what = "a string"): string[] {
    return this.array(key, max).map((v, i) => {
      if (typeof v !== "string" || v === "" || v.length > maxText)
        throw this.fault(`${this.name(key)}[${i}] must be ${what}`);
      return v;
    });
  }

  /** An object whose every value is a string (an environment, `env_defaults`). */
  stringMap(key: string, options: { optional?: boolean; max?: number } = {}): Record<string, string> {
    const map = this.fields(key, { optional: options.optional === true ? true : undefined });
    if (!map) return undefined as unknown as Record<string, string>;
    for (const k of map.keys()) map.string(k, { max: options.max ?? MAX_TEXT });
    return this.o[key] as Record<string, string>;
  }
}

/** An array's item as an object's fields (`where` names it: `notes[3]`). */
export function item(parent: Fields, value: unknown, where: string, what = "an object"): Fields {
  if (!isJsonObject(value)) throw parent.fault(`${where} must be ${what}`);
  return new Fields(value, where, parent.fault, parent.paths);
}

/** Traffic counters (`SessionUsage`). */
export function readUsage(f: Fields | undefined): void {
  if (!f) return;
  for (const key of USAGE_KEYS) f.count(key);
}

const USAGE_KEYS: readonly (keyof SessionUsage & string)[] = [
  "bytes_sent",
  "bytes_received",
  "notes_sent",
  "notes_received",
];

/** `lat`, `lon` (a place on Earth) and, unless `timed` is false, `time`. */
export function readPlace(f: Fields | undefined, timed = true): void {
  if (!f) return;
  const lat = f.number("lat");
  const lon = f.number("lon");
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180)
    throw f.fault(`${f.paths ? f.path : "where"} is not a place on Earth`);
  if (timed) f.number("time", { min: 0 });
}

/**
 * Whether `readNote` takes `value` as it is, told by one property read per member: true only for
 * the plain note a batch is mostly made of (no payload, history, conflicts or place), each of
 * whose members `readNote` would accept; anything else is for `readNote` to read and name the
 * fault of. `readNote`'s generic reads look members up by a key it is given, a lookup that is
 * slow where it sees many kinds of object; a batch's hundred notes are read here in one pass.
 */
export function isPlainNote(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const { id, body, when, endpoint, deleted } = value;
  return (
    typeof id === "string" &&
    id.length <= 256 &&
    isValidNoteId(id) &&
    (body === undefined || isJsonObject(body)) &&
    value.payload === undefined &&
    typeof when === "number" &&
    Number.isFinite(when) &&
    when >= 0 &&
    isCount(value.updates) &&
    typeof endpoint === "string" &&
    endpoint.length <= 64 &&
    (deleted === undefined || deleted === true) &&
    isCount(value.change) &&
    value.history === undefined &&
    value.conflicts === undefined &&
    value.where === undefined
  );
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A note record (protocol/NoteRecord.ts); `depth` counts nested conflicts. */
export function readNote(parent: Fields, value: unknown, where: string, depth = 0): NoteRecord {
  const f = item(parent, value, where, "a note object");
  const fault = f.fault;
  const id = f.string("id", { max: 256 });
  if (!isValidNoteId(id)) throw fault(`${where}.id is not a valid note ID`);
  f.object("body", { optional: true });
  const payload = f.string("payload", { optional: true, max: Number.MAX_SAFE_INTEGER });
  if (payload !== undefined && decodeBase64(payload) === undefined)
    throw fault(`${where}.payload is not base64`);
  f.number("when", { min: 0 });
  f.count("updates");
  f.string("endpoint", { max: 64 });
  if (f.has("deleted") && f.value("deleted") !== true)
    throw fault(`${where}.deleted must be true when present`);
  f.count("change");
  const history = f.fields("history", { optional: true });
  for (const key of history?.keys() ?? []) history!.count(key);
  if (f.has("conflicts")) {
    if (depth >= MAX_CONFLICT_DEPTH) throw fault(`${where}.conflicts nest too deeply`);
    f.array("conflicts", BATCH_LIMITS.notes).forEach((c, i) =>
      readNote(f, c, `${where}.conflicts[${i}]`, depth + 1),
    );
  }
  readPlace(f.fields("where", { optional: true }));
  return value as unknown as NoteRecord;
}
