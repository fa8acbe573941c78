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
  const keys = sortedKeys(value);
  let text = "{";
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ",";
    text += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/**
 * An object's own keys in `Array.prototype.sort` order. A body's few keys are sorted in place by
 * insertion, which allocates nothing (the built-in sort copies its array first).
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
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
 * A deep copy of a JSON value. Bodies cross boundaries by reference in-process (`Module.request`,
 * the in-process hub link), so each side copies them in and out: a caller mutating its object
 * must not change what was stored.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    setMember(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}
