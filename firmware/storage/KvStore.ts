/**
 * The storage port of a module: a crash-safe key/value store of byte records, committed in
 * atomic batches. The module's datafile semantics (notefiles, notes, trackers, templates,
 * configuration) live above it in `Notebox`; stores only keep bytes.
 *
 * Implementations: `MemoryKvStore` (tests, and `cardsim module` without a flash directory) and
 * the flash-backed store of firmware/storage (journal + compaction on a file-system backend).
 */
export type KvOp =
  | { readonly op: "put"; readonly key: string; readonly value: Uint8Array }
  | { readonly op: "delete"; readonly key: string }
  /** Deletes every key that starts with `prefix` (`""` erases the store). */
  | { readonly op: "deletePrefix"; readonly prefix: string };

/** What a store found and repaired when it was opened after a crash. */
export interface RecoveryReport {
  /** One line per repair, for the log and the `_health.qo` note. */
  readonly details: readonly string[];
  /** Bytes cut from a torn or corrupt tail. */
  readonly truncatedBytes: number;
  /** Records found damaged and dropped. */
  readonly droppedRecords: number;
}

export interface KvSnapshot {
  readonly records: ReadonlyMap<string, Uint8Array>;
  /** Present when the store had to repair itself while opening. */
  readonly recovery?: RecoveryReport;
}

export interface StorageUsage {
  /** Bytes of flash in use, overheads included. */
  readonly used: number;
  /** Bytes of flash the module may use. */
  readonly capacity: number;
}

export interface KvStore {
  /**
   * Reads every live record. Called at every boot of the module: a second call (a simulated
   * reboot, `card.restart`) re-reads what is durable, as a powered-up module would.
   */
  open(): Promise<KvSnapshot>;
  /**
   * Applies `ops` atomically: after a crash either all of them are there or none. Resolves only
   * when the batch is durable. Rejects with a `{file-storage-full}` SimError, changing nothing,
   * when the batch does not fit.
   */
  commit(ops: readonly KvOp[]): Promise<void>;
  usage(): StorageUsage;
  close(): Promise<void>;
}
