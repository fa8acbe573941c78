import { storageFull } from "../errors.js";
import type { KvOp, KvSnapshot, KvStore, StorageUsage } from "./KvStore.js";

/** Bytes of bookkeeping the flash spends per record besides key and value. */
export const RECORD_OVERHEAD = 16;

/**
 * Keeps records in memory. Usage is counted the way flash would count it (key, value and a
 * per-record overhead) so capacity limits behave the same in fast tests. `records` outlives a
 * simulated reboot when the same instance is passed to the next module.
 */
export class MemoryKvStore implements KvStore {
  readonly records = new Map<string, Uint8Array>();
  readonly #capacity: number;
  #used = 0;
  #commits = 0;

  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? 4 * 1024 * 1024;
  }

  /** Number of committed batches (used by tests to see that a request wrote nothing). */
  get commits(): number {
    return this.#commits;
  }

  async open(): Promise<KvSnapshot> {
    return { records: new Map(this.records) };
  }

  async commit(ops: readonly KvOp[]): Promise<void> {
    if (ops.length === 1 && ops[0]!.op === "put") return this.#put(ops[0]!.key, ops[0]!.value);
    // Work out the size after the batch before touching anything, so a full store changes nothing.
    const after = new Map<string, Uint8Array | undefined>();
    let used = this.#used;
    for (const op of ops) {
      if (op.op === "deletePrefix") {
        for (const key of new Set([...this.records.keys(), ...after.keys()]))
          if (key.startsWith(op.prefix)) used -= this.#drop(after, key);
        continue;
      }
      used -= this.#drop(after, op.key);
      if (op.op === "put") {
        used += op.key.length + op.value.length + RECORD_OVERHEAD;
        after.set(op.key, op.value);
      }
    }
    if (used > this.#capacity && used > this.#used) throw storageFull();
    for (const [key, value] of after) {
      if (value) this.records.set(key, value);
      else this.records.delete(key);
    }
    this.#used = used;
    this.#commits++;
  }

  /** Marks `key` gone in `after`; returns the bytes its value held before (0 for none). */
  #drop(after: Map<string, Uint8Array | undefined>, key: string): number {
    const old = after.has(key) ? after.get(key) : this.records.get(key);
    after.set(key, undefined);
    return old ? key.length + old.length + RECORD_OVERHEAD : 0;
  }

  /** The common single-record batch, without the bookkeeping of a general batch. */
  #put(key: string, value: Uint8Array): void {
    const old = this.records.get(key);
    const used =
      this.#used -
      (old ? key.length + old.length + RECORD_OVERHEAD : 0) +
      key.length +
      value.length +
      RECORD_OVERHEAD;
    if (used > this.#capacity && used > this.#used) throw storageFull();
    this.records.set(key, value);
    this.#used = used;
    this.#commits++;
  }

  usage(): StorageUsage {
    return { used: this.#used, capacity: this.#capacity };
  }

  async close(): Promise<void> {}
}
