import { isJsonObject, type JsonObject } from "../../core/json.js";

type JsonValue = unknown;

/**
 * Note bodies from a workload's body template, seeded: the same seed, module and note number give
 * the same body, with no state per module but its note count. A value of the template is kept as
 * it is, or is a generator object with one key:
 *
 * - `{"$random": [MIN, MAX]}`: a number in [MIN, MAX), two decimals
 * - `{"$int": [MIN, MAX]}`: an integer in [MIN, MAX]
 * - `{"$seq": START}`: START, START + 1, ... (the module's note number)
 * - `{"$pick": [A, B, ...]}`: one of the values
 *
 * Objects nest. `bytes` pads each body (a `pad` field of `x`s) to that many bytes of JSON.
 */
export type BodyGenerator = (seed: number, module: number, n: number) => JsonObject;

type ValueGenerator = (random: () => number, n: number) => JsonValue;

/** A 32-bit hash of a text (FNV-1a): a workload's seed as a number. */
export function hashSeed(text: string | number): number {
  let h = 0x811c9dc5;
  for (const ch of String(text)) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small, fast seeded generator of numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isGenerator(value: JsonValue): value is JsonObject {
  if (!isJsonObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0]!.startsWith("$");
}

function pair(spec: JsonValue, name: string, at: string): [number, number] {
  if (!Array.isArray(spec) || spec.length !== 2 || !spec.every((v) => typeof v === "number"))
    throw new Error(`${at}: ${name} takes [MIN, MAX], two numbers`);
  const [min, max] = spec as [number, number];
  if (max < min) throw new Error(`${at}: ${name} takes [MIN, MAX] with MIN <= MAX`);
  return [min, max];
}

function generatorOf(spec: JsonObject, at: string): ValueGenerator {
  const [key, arg] = Object.entries(spec)[0]!;
  switch (key) {
    case "$random": {
      const [min, max] = pair(arg!, key, at);
      return (random) => Math.round((min + random() * (max - min)) * 100) / 100;
    }
    case "$int": {
      const [min, max] = pair(arg!, key, at);
      return (random) => Math.floor(min + random() * (Math.floor(max) - Math.ceil(min) + 1));
    }
    case "$seq": {
      if (typeof arg !== "number") throw new Error(`${at}: $seq takes its first number`);
      return (_random, n) => arg + n;
    }
    case "$pick": {
      if (!Array.isArray(arg) || arg.length === 0) throw new Error(`${at}: $pick takes a list of values`);
      const values = arg;
      return (random) => values[Math.floor(random() * values.length)]!;
    }
    default:
      throw new Error(`${at}: unknown generator ${key} (use $random, $int, $seq or $pick)`);
  }
}

function compileObject(template: JsonObject, at: string): (random: () => number, n: number) => JsonObject {
  const parts = Object.entries(template).map(([key, value]): [string, ValueGenerator] => {
    const path = `${at}.${key}`;
    if (isGenerator(value)) return [key, generatorOf(value, path)];
    if (isJsonObject(value)) {
      const inner = compileObject(value, path);
      return [key, inner];
    }
    return [key, () => value];
  });
  return (random, n) => {
    const out: JsonObject = {};
    for (const [key, make] of parts) out[key] = make(random, n);
    return out;
  };
}

/** Compiles a body template (`at` names it in errors); `bytes` pads each body to that size. */
export function compileBody(
  template: JsonObject | undefined,
  bytes: number | undefined,
  at: string,
): BodyGenerator {
  const make = compileObject(template ?? {}, at);
  return (seed, module, n) => {
    const random = mulberry32(seed ^ Math.imul(module + 1, 0x9e3779b1) ^ Math.imul(n + 1, 0x85ebca6b));
    const body = make(random, n);
    if (bytes !== undefined) {
      const size = JSON.stringify(body).length;
      const room = bytes - size - (size > 2 ? 9 : 8); // `,"pad":""` (or `"pad":""` in `{}`)
      if (room >= 0) body["pad"] = "x".repeat(room);
    }
    return body;
  };
}
