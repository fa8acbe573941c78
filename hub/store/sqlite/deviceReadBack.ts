import type { DeviceRecord } from "../records.js";

/**
 * Whether `JSON.parse(JSON.stringify(record))` would give `record` back member for member, its
 * nested members being parsed ones already: no member undefined (dropped by JSON), no number that
 * JSON writes otherwise (NaN and the infinities as null, -0 as 0).
 */
export function readsBackAs(record: DeviceRecord): boolean {
  for (const key in record) {
    const value = (record as unknown as Record<string, unknown>)[key];
    if (value === undefined) return false;
    if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) return false;
  }
  return true;
}
