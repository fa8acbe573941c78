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
