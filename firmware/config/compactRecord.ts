/**
 * A settings object ready to store as a configuration record: absent (undefined) settings
 * dropped; undefined when nothing is left, so an all-default record is deleted, not kept empty.
 */
export function compactRecord<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}

/** Stores `value` (compacted) under `key` only if it differs from what is stored. */
export function storeRecord(
  box: { config<V>(key: string): V | undefined; setConfig(key: string, value: unknown): void },
  key: string,
  value: object,
): void {
  const next = compactRecord(value);
  if (JSON.stringify(next) !== JSON.stringify(box.config(key))) box.setConfig(key, next);
}
