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
