import { utf8Length } from "./bytes.js";

/** JSON values as both ends of the system hold them (requests, note bodies, events). */
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets `obj[key]` as an own, enumerable member, even for the key `__proto__`, which JSON text
 * may carry as an ordinary name (JSON.parse makes it an own member; plain assignment would
 * change the object's prototype instead and lose the value).
 */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * JSON text with every object's keys in sorted order (UTF-16 code units, as Array.prototype.sort
 * orders strings) and no whitespace: equal values give equal text, whatever order their members
 * were written in. Members whose value is undefined are left out and undefined array elements
 * written as null, as JSON.stringify does. The same text as the fast-json-stable-stringify
 * package for JSON values (a property test holds them to it), about twice as fast: the hub
 * derives every synced note's event UID from its body this way.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ",";
      const item: unknown = value[i];
      text += item === undefined ? "null" : canonicalJson(item);
    }
    return `${text}]`;
  }
  layoutOf(value);
  // Read before the members are written: a member that is an object lays out its own keys.
  const sorted = lastSorted;
  const names = lastNames;
  let text = "{";
  for (let i = 0; i < sorted.length; i++) {
    const member = (value as Record<string, unknown>)[sorted[i]!];
    if (member === undefined) continue;
    if (text.length > 1) text += ",";
    text += names[i]! + canonicalJson(member);
  }
  return `${text}}`;
}

/**
 * The keys of the last object `canonicalJson` wrote, as `Object.keys` gave them, then sorted, and
 * each sorted key's JSON text with its colon. The bodies of a batch of notes mostly have the same
 * keys in the same order: the next one's keys are compared with these (the same strings, so equal
 * at once), and the sorting and the keys' JSON written again only when they differ.
 */
let lastKeys: readonly string[] = [];
let lastSorted: readonly string[] = [];
let lastNames: readonly string[] = [];

function layoutOf(value: object): void {
  const keys = Object.keys(value);
  if (sameStrings(keys, lastKeys)) return;
  lastKeys = keys;
  lastSorted = sortedKeys(keys.slice());
  lastNames = lastSorted.map((key) => `${JSON.stringify(key)}:`);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `keys` sorted in place, in `Array.prototype.sort` order. A body's few keys are sorted by
 * insertion, which allocates nothing (the built-in sort copies its array first).
 */
function sortedKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** The longest JSON text of a number (e.g. `-2.2250738585072014e-308`). */
const MAX_NUMBER_TEXT = 24;

/**
 * An upper bound of `JSON.stringify(value).length`, found without writing the text: a walk
 * that counts every number as its longest text and every character of a string as an escape.
 * Several times cheaper than the text itself for bodies of numbers, whose formatting is most of
 * the cost; a caller that needs the exact length only near a limit asks for it only there.
 */
export function jsonLengthBound(value: unknown): number {
  switch (typeof value) {
    case "string":
      return 2 + 6 * value.length;
    case "number":
      return MAX_NUMBER_TEXT;
    case "boolean":
      return 5;
    case "object": {
      if (value === null) return 4;
      let length = 2;
      if (Array.isArray(value)) {
        for (const item of value) length += 1 + jsonLengthBound(item);
        return length;
      }
      // for...in over own members: no array of keys made (a body is measured for every note sent).
      for (const key in value) {
        if (Object.hasOwn(value, key))
          length += 2 + jsonLengthBound(key) + jsonLengthBound((value as Record<string, unknown>)[key]);
      }
      return length;
    }
    default:
      return 4; // undefined, functions and symbols: left out, or null in an array
  }
}

/**
 * The UTF-8 bytes of `JSON.stringify(value)` (0 when it gives undefined), found without writing
 * the text: what crossed a wire is counted for every sync message both ways, and writing the text
 * only to measure it cost more than the rest of a small reply's handling. Strings of printable
 * ASCII and integers are measured in place; any other string or number, and what is not plain
 * data (a class instance, a Date, an object with `toJSON`), by its own JSON text. Throws what
 * JSON.stringify throws (a cycle, a BigInt).
 */
export function jsonByteLength(value: unknown): number {
  return orByText(byteLength, textBytes, value);
}

/**
 * `fast(value)`, or `byText(value)` when `fast` ran into a cycle (its RangeError, from the stack):
 * JSON.stringify then throws what it throws for a cycle.
 */
function orByText<T>(fast: (value: unknown) => T, byText: (value: unknown) => T, value: unknown): T {
  try {
    return fast(value);
  } catch (error) {
    if (error instanceof RangeError) return byText(value);
    throw error;
  }
}

function textBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : utf8Length(text);
}

/** Text JSON writes as it is, between its quotes: printable ASCII but `"` and `\`. */
const PLAIN_TEXT = /^[ !#-[\]-~]*$/;

/** Below this length a loop over the characters beats the regular expression's call (members' names). */
const SHORT_TEXT = 32;

function stringBytes(text: string): number {
  if (text.length < SHORT_TEXT) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return utf8Length(JSON.stringify(text));
    }
    return text.length + 2;
  }
  return PLAIN_TEXT.test(text) ? text.length + 2 : utf8Length(JSON.stringify(text));
}

/** JSON's text of a number: an integer below 10^16 counted digit by digit, others written. */
function numberBytes(n: number): number {
  if (!Number.isSafeInteger(n)) return Number.isFinite(n) ? String(n).length : 4; // "null"
  let length = n < 0 ? 2 : 1;
  const magnitude = Math.abs(n);
  for (let power = 10; magnitude >= power; power *= 10) length++;
  return length;
}

/** Callers inside an array or object leave out (or write as null) what JSON.stringify does. */
function byteLength(value: unknown): number {
  switch (typeof value) {
    case "string":
      return stringBytes(value);
    case "number":
      return numberBytes(value);
    case "boolean":
      return value ? 4 : 5;
    case "object": {
      if (value === null) return 4;
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype === Array.prototype && !("toJSON" in value)) {
        const items = value as readonly unknown[];
        let length = items.length > 0 ? items.length + 1 : 2; // brackets and commas
        for (let i = 0; i < items.length; i++) {
          const item = items[i];
          length += leftOut(item) ? 4 : byteLength(item);
        }
        return length;
      }
      if ((prototype !== Object.prototype && prototype !== null) || "toJSON" in value)
        return textBytes(value);
      let length = 1; // the opening brace; each member adds its comma or the closing brace
      // for...in over own members: no array of keys made (Object.keys would, for every object).
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const member = (value as Record<string, unknown>)[key];
        if (leftOut(member)) continue;
        length += stringBytes(key) + 2 + byteLength(member); // the colon, the comma
      }
      return length === 1 ? 2 : length;
    }
    default:
      return textBytes(value); // undefined, a function or a symbol: 0; a BigInt throws as JSON.stringify does
  }
}

/**
 * A deep copy of a JSON value. Bodies cross boundaries by reference in-process (`Module.request`),
 * so each side copies them in and out: a caller mutating its object must not change what was
 * stored. (The in-process hub link copies whole messages by `jsonRoundTrip`, which also gives what
 * JSON makes of values that are not JSON.)
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    setMember(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/**
 * What `JSON.parse(JSON.stringify(value))` gives, made by copying rather than by parsing the text
 * again (several times cheaper for a batch of notes): members that are undefined, functions or
 * symbols left out (null in an array), numbers that are not finite as null, -0 as 0, `__proto__` an
 * ordinary member. What is not plain data (a class instance, a Date, an object with `toJSON`, a
 * typed array) goes through its JSON text, and so does a value that cannot be written as JSON (a
 * cycle, a BigInt: the same error as JSON.stringify's). The in-process hub link uses it to hand
 * each end its own copy of a message, as if it had crossed a wire.
 */
export function jsonRoundTrip(value: unknown): unknown {
  return orByText(roundTripCopy, viaText, value);
}

function viaText(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value) as string) as unknown;
}

function roundTripCopy(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : null; // -0 + 0 is 0
    case "object": {
      if (value === null) return null;
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype === Array.prototype && !("toJSON" in value)) {
        const items = value as readonly unknown[];
        const out: unknown[] = []; // pushed, not sized: a packed array, as JSON.parse makes
        for (let i = 0; i < items.length; i++) {
          const item = items[i];
          out.push(leftOut(item) ? null : roundTripCopy(item));
        }
        return out;
      }
      if ((prototype !== Object.prototype && prototype !== null) || "toJSON" in value) return viaText(value);
      const out: Record<string, unknown> = {};
      // for...in over own members: no array of keys made for every object of every message.
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const member = (value as Record<string, unknown>)[key];
        if (leftOut(member)) continue;
        // setMember, written out: this runs for every member of every message.
        if (key === "__proto__") setMember(out, key, roundTripCopy(member));
        else out[key] = roundTripCopy(member);
      }
      return out;
    }
    default:
      return viaText(value); // BigInt throws as JSON.stringify does; undefined as JSON.parse does
  }
}

/** A member JSON.stringify leaves out of an object (and writes as null in an array). */
function leftOut(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}
