import { setMember } from "./setMember.js";

/**
 * A deep copy of a JSON value. Bodies cross the module boundary by reference in-process
 * (`Module.request`), so the module copies them in and out: a caller mutating its request or
 * reply object must not change what the module stores.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    setMember(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}
