import { flashUnreadable, flashUnusable, flashWriteFailed, storageFull } from "../../errors.js";
import { SimError } from "../../SimError.js";
import type { KvOp, KvSnapshot, KvStore, RecoveryReport, StorageUsage } from "../KvStore.js";
import { replaceFile, temporaryName } from "./AtomicFile.js";
import { BatchWriter, keyByteLength, putRecordSize } from "./BatchCodec.js";
import { FlashFsError, type FlashFile, type FlashFs } from "./FlashFs.js";
import { scanFlash, type FlashScan } from "./FlashScan.js";
import {
  BASE_CHUNK_BYTES,
  encodeFileHeader,
  encodeFrame,
  FILE_HEADER_SIZE,
  MAX_FRAME_HEADER_SIZE,
  FrameType,
  journalName,
} from "./JournalFormat.js";
import { encodeSuperblock, FORMAT_VERSION, SUPERBLOCK_NAME } from "./Superblock.js";

export const DEFAULT_FLASH_CAPACITY = 4 * 1024 * 1024;
export const DEFAULT_COMPACTION_THRESHOLD = 64 * 1024;
/**
 * A generation is compacted once its garbage exceeds this many times its live data: each byte
 * of garbage then costs at most 1/2 byte of copying, which keeps write amplification low, and the
 * journal stays under three times the live data (a full flash compacts earlier, when it must).
 */
export const GARBAGE_RATIO = 2;

export interface FlashKvStoreOptions {
  /** Bytes of flash the module may use. Default: what `flash.json` says, else 4 MiB. */
  readonly capacity?: number;
  /**
   * Garbage (bytes of replaced and deleted records in the journal) below which no background
   * compaction runs, however small the live data. Default 64 KiB. Above it, a compaction runs
   * once the garbage exceeds `GARBAGE_RATIO` times the live data.
   */
  readonly compactionThreshold?: number;
  /** Runs when `close()` has let go of the files (the edge releases its directory lock here). */
  readonly onClose?: () => Promise<void>;
}

/** Counters for tests, benchmarks and `flash inspect`. */
export interface FlashStoreStats {
  readonly generation: number;
  readonly liveRecords: number;
  /** Bytes the live records take in compacted form (what a compaction would write). */
  readonly liveBytes: number;
  readonly journalBytes: number;
  readonly compactions: number;
}

/** A key a batch deletes, in its plan's overlay (compared by identity, never written). */
const DELETED = new Uint8Array(0);

interface Plan {
  /** Every key the batch touches and its value after the batch (DELETED: deleted). */
  readonly overlay: Map<string, Uint8Array>;
  readonly liveRecordBytes: number;
  readonly changed: boolean;
}

/**
 * The module's flash: a crash-safe key/value store on a `FlashFs`. State lives in one journal
 * file per generation: the compacted state it starts from, then one checksummed frame per
 * committed batch. A commit resolves only once its frame is synced; a compaction writes the next
 * generation beside the current one and switches with an atomic rename. Opening replays the
 * newest intact generation, cuts a torn tail, steps over damage, and reports what it repaired.
 * The format is described in docs/storage-format.md.
 *
 * Capacity counts every byte of the directory's state (superblock, journal, garbage not yet
 * compacted). While compacting, the old and new generation coexist for a moment; that transient
 * reserve is outside the capacity, like the spare blocks of a real flash file system.
 */
export class FlashKvStore implements KvStore {
  readonly #fs: FlashFs;
  readonly #options: FlashKvStoreOptions;
  #capacity: number;
  #index = new Map<string, Uint8Array>();
  #liveRecordBytes = 0;
  /** Highest generation number in use or seen; the next compaction writes the one after. */
  #generation = 0;
  /** Generation of the journal appended to. */
  #current = 0;
  #sequence = 0;
  #journal: FlashFile | undefined;
  #superblockBytes = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #failed: unknown;
  #opened = false;
  #compactions = 0;
  /** After a failed background compaction, wait for this much garbage before trying again. */
  #retryGarbage = 0;

  constructor(fs: FlashFs, options: FlashKvStoreOptions = {}) {
    this.#fs = fs;
    this.#options = options;
    this.#capacity = options.capacity ?? DEFAULT_FLASH_CAPACITY;
  }

  open(): Promise<KvSnapshot> {
    return this.#exclusive(async () => {
      await this.#release();
      this.#opened = false;
      this.#failed = undefined;
      let scan: FlashScan;
      try {
        scan = await scanFlash(this.#fs);
      } catch (error) {
        throw openError(error);
      }
      if (scan.fatal) throw scan.fatal;
      try {
        await this.#mount(scan);
      } catch (error) {
        await this.#release();
        throw openError(error);
      }
      this.#opened = true;
      const recovery: RecoveryReport | undefined =
        scan.problems.length > 0
          ? {
              details: scan.problems,
              truncatedBytes: scan.truncatedBytes,
              droppedRecords: scan.droppedRecords,
            }
          : undefined;
      // The index itself, not a copy (100,000 records cost a copy 30 ms at boot): read it before
      // the next commit, as Notebox does.
      return recovery ? { records: this.#index, recovery } : { records: this.#index };
    });
  }

  commit(ops: readonly KvOp[]): Promise<void> {
    return this.#exclusive(async () => {
      const journal = this.#usableJournal();
      const plan = this.#plan(ops);
      if (!plan.changed) return;
      const before = compactedSize(this.#liveRecordBytes);
      const after = compactedSize(plan.liveRecordBytes);
      if (this.#superblockBytes + after > this.#capacity && after > before) throw storageFull();
      const frame = encodeFrame(FrameType.commit, this.#sequence + 1, BatchWriter.encode(ops));
      if (this.#superblockBytes + journal.size + frame.length <= this.#capacity) {
        await this.#append(journal, frame);
        this.#sequence++;
        for (const [key, value] of plan.overlay) {
          if (value !== DELETED) this.#index.set(key, value);
          else this.#index.delete(key);
        }
      } else {
        // No room to append: write the next generation with the batch folded in. The rename that
        // makes it current is the batch's commit point, so it stays atomic.
        try {
          await this.#compact(plan);
        } catch (error) {
          throw writeError(error);
        }
      }
      this.#liveRecordBytes = plan.liveRecordBytes;
      this.#scheduleCompaction();
    });
  }

  /** Compacts now: rewrites the live records as the next generation and drops the garbage. */
  compact(): Promise<void> {
    return this.#exclusive(async () => {
      this.#usableJournal();
      try {
        await this.#compact(undefined);
      } catch (error) {
        throw writeError(error);
      }
    });
  }

  usage(): StorageUsage {
    return { used: this.#superblockBytes + (this.#journal?.size ?? 0), capacity: this.#capacity };
  }

  get stats(): FlashStoreStats {
    return {
      generation: this.#current,
      liveRecords: this.#index.size,
      liveBytes: compactedSize(this.#liveRecordBytes),
      journalBytes: this.#journal?.size ?? 0,
      compactions: this.#compactions,
    };
  }

  close(): Promise<void> {
    return this.#exclusive(async () => {
      await this.#release();
      this.#opened = false;
      await this.#options.onClose?.();
    });
  }

  // --- opening ---------------------------------------------------------------------------------

  async #mount(scan: FlashScan): Promise<void> {
    const fs = this.#fs;
    for (const name of scan.temporary) await fs.remove(name);
    const stored = scan.superblock?.ok ? scan.superblock.superblock : undefined;
    this.#capacity = this.#options.capacity ?? stored?.capacity ?? DEFAULT_FLASH_CAPACITY;
    const chosen = scan.chosen;
    this.#index = chosen ? chosen.replay.records : new Map();
    this.#liveRecordBytes = chosen ? chosen.replay.liveRecordBytes : 0;
    this.#generation = Math.max(scan.maxGeneration, chosen?.generation ?? 0);

    const rewrite =
      !chosen ||
      scan.salvaged ||
      chosen.replay.damaged.length > 0 ||
      chosen.replay.lostFrames > 0 ||
      chosen.replay.baseRecordsLost > 0;
    if (rewrite) {
      // A new flash, or a damaged journal: start a clean generation from what could be read. The
      // damaged file is kept aside for study, never deleted.
      await this.#writeGeneration(this.#index);
      if (chosen)
        await fs.rename(journalName(chosen.generation), `${journalName(chosen.generation)}.damaged`);
    } else {
      const journal = await fs.open(journalName(chosen.generation), "existing", { durableWrites: true });
      this.#journal = journal;
      this.#current = chosen.generation;
      this.#sequence = chosen.replay.lastSequence;
      if (chosen.replay.tornBytes > 0) {
        await journal.truncate(chosen.replay.end);
        await journal.sync();
      }
    }
    for (const r of scan.rejected) {
      await fs.rename(journalName(r.generation), `${journalName(r.generation)}.damaged`);
    }
    for (const g of scan.stale) await fs.remove(journalName(g));

    const superblockSize = scan.files.find((f) => f.name === SUPERBLOCK_NAME)?.size;
    if (!stored || stored.capacity !== this.#capacity || superblockSize === undefined) {
      this.#superblockBytes = await replaceFile(fs, SUPERBLOCK_NAME, [
        encodeSuperblock({ version: FORMAT_VERSION, capacity: this.#capacity }),
      ]);
    } else {
      this.#superblockBytes = superblockSize;
    }
    await fs.syncDir();
  }

  // --- writing ---------------------------------------------------------------------------------

  #usableJournal(): FlashFile {
    if (!this.#opened || !this.#journal) throw new Error("FlashKvStore: open() the store before using it");
    if (this.#failed !== undefined) throw flashUnusable();
    return this.#journal;
  }

  #plan(ops: readonly KvOp[]): Plan {
    // One lookup a key where it can (a batch of deletes is a sync's acknowledgement: a hundred of
    // them), no closure: a key the batch already touched is in `overlay`, deleted ones as DELETED.
    const overlay = new Map<string, Uint8Array>();
    const index = this.#index;
    let live = this.#liveRecordBytes;
    let changed = false;
    for (const op of ops) {
      if (op.op === "deletePrefix") {
        const keys = new Set<string>();
        for (const key of index.keys()) if (key.startsWith(op.prefix)) keys.add(key);
        for (const key of overlay.keys()) if (key.startsWith(op.prefix)) keys.add(key);
        for (const key of keys) {
          const old = liveBytes(overlay, index, key);
          if (old > 0) {
            live -= old;
            changed = true;
          }
          overlay.set(key, DELETED);
        }
        continue;
      }
      const key = op.key;
      const old = liveBytes(overlay, index, key);
      if (old > 0) {
        live -= old;
        changed = true;
      }
      if (op.op === "put") {
        live += recordSize(key, op.value);
        overlay.set(key, op.value);
        changed = true;
      } else {
        overlay.set(key, DELETED);
      }
    }
    return { overlay, liveRecordBytes: live, changed };
  }

  /** Appends one frame durably; on failure the journal is cut back so the frame never reappears. */
  async #append(journal: FlashFile, frame: Uint8Array): Promise<void> {
    const before = journal.size;
    try {
      await journal.append(frame);
      if (!journal.writesAreDurable) await journal.sync();
    } catch (error) {
      try {
        await journal.truncate(before);
        await journal.sync();
      } catch {
        this.#failed = error;
      }
      throw writeError(error);
    }
  }

  /** Garbage in the current journal beyond what is tolerated before compacting, or 0. */
  #excessGarbage(): number {
    const live = compactedSize(this.#liveRecordBytes);
    const garbage = (this.#journal?.size ?? 0) - live;
    const threshold = Math.max(
      this.#options.compactionThreshold ?? DEFAULT_COMPACTION_THRESHOLD,
      GARBAGE_RATIO * live,
      this.#retryGarbage,
    );
    return garbage >= threshold ? garbage : 0;
  }

  #scheduleCompaction(): void {
    if (this.#excessGarbage() === 0) return;
    // Runs after this commit has resolved, ahead of the next store operation.
    void this.#exclusive(async () => {
      const garbage = this.#excessGarbage();
      if (garbage === 0 || this.#failed !== undefined || !this.#journal) return;
      try {
        await this.#compact(undefined);
        this.#retryGarbage = 0;
      } catch {
        // The current generation is intact unless #compact marked the store failed; try again
        // once the garbage has doubled rather than on every commit.
        this.#retryGarbage = 2 * garbage;
      }
    }).catch(() => undefined);
  }

  /**
   * Writes the live records (with `plan` applied) as the next generation, makes it current and
   * removes the old one. Failing before the rename leaves the current generation as it was;
   * failing after it leaves the store unusable until reopened, since which one is current on
   * flash is then unknown.
   */
  async #compact(plan: Plan | undefined): Promise<void> {
    const previous = this.#current;
    const entries = plan ? merged(this.#index, plan.overlay) : this.#index;
    await this.#writeGeneration(entries);
    this.#compactions++;
    try {
      await this.#fs.remove(journalName(previous));
      await this.#fs.syncDir();
    } catch (error) {
      // The new generation is durable; a leftover old one is removed at the next open.
      if (error instanceof FlashFsError && error.code === "power-lost") this.#failed = error;
    }
  }

  async #writeGeneration(entries: Iterable<[string, Uint8Array]>): Promise<void> {
    const generation = this.#generation + 1;
    const name = journalName(generation);
    // Compacting the index itself, its values are pointed at their copies in place (the same
    // bytes, so a failure part-way leaves it right); no second map of every record is built.
    const relocated = entries === this.#index ? this.#index : new Map<string, Uint8Array>();
    let sequence = 0;
    const frames = function* (): Generator<Uint8Array> {
      yield encodeFileHeader(generation);
      let chunk = new BatchWriter(BASE_CHUNK_BYTES);
      let records = 0;
      let chunks = 0;
      for (const [key, value] of entries) {
        let stored = chunk.tryPutText(key, value);
        if (!stored) {
          if (chunk.length > 0) {
            yield encodeFrame(FrameType.base, ++sequence, chunk.bytes());
            chunks++;
          }
          chunk = new BatchWriter(Math.max(BASE_CHUNK_BYTES, recordSize(key, value)));
          stored = chunk.tryPutText(key, value)!;
        }
        // Point the index at the copy in the chunk, so old file buffers can be freed.
        relocated.set(key, stored);
        records++;
      }
      if (chunk.length > 0) {
        yield encodeFrame(FrameType.base, ++sequence, chunk.bytes());
        chunks++;
      }
      const end = new Uint8Array(8);
      new DataView(end.buffer).setUint32(0, records, true);
      new DataView(end.buffer).setUint32(4, chunks, true);
      yield encodeFrame(FrameType.baseEnd, ++sequence, end);
    };

    const tmp = temporaryName(name);
    const file = await this.#fs.open(tmp, "truncate");
    try {
      for (const frame of frames()) await file.append(frame);
      await file.sync();
      await file.close();
    } catch (error) {
      await file.close().catch(() => undefined);
      await this.#fs.remove(tmp).catch(() => undefined);
      throw error;
    }
    this.#generation = generation;
    try {
      await this.#fs.rename(tmp, name);
      await this.#fs.syncDir();
      const journal = await this.#fs.open(name, "existing", { durableWrites: true });
      await this.#release();
      this.#journal = journal;
    } catch (error) {
      this.#failed = error;
      throw error;
    }
    this.#current = generation;
    this.#sequence = sequence;
    this.#index = relocated;
  }

  async #release(): Promise<void> {
    const journal = this.#journal;
    this.#journal = undefined;
    await journal?.close().catch(() => undefined);
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function recordSize(key: string, value: Uint8Array): number {
  return putRecordSize(keyByteLength(key), value.length);
}

/** The bytes of `key`'s live record as a batch's plan leaves it so far (0: it has none). */
function liveBytes(
  overlay: ReadonlyMap<string, Uint8Array>,
  index: ReadonlyMap<string, Uint8Array>,
  key: string,
): number {
  const value = overlay.get(key) ?? index.get(key);
  return value === undefined || value === DELETED ? 0 : recordSize(key, value);
}

/**
 * An upper bound of the bytes a generation holding records of `recordBytes` takes: file header,
 * records, base frame headers (greedy packing closes a chunk only when the next record does not
 * fit, so two consecutive chunks always exceed one chunk's size) and the base end frame.
 */
function compactedSize(recordBytes: number): number {
  const chunks = 2 * Math.floor(recordBytes / BASE_CHUNK_BYTES) + 1;
  return FILE_HEADER_SIZE + recordBytes + (chunks + 1) * MAX_FRAME_HEADER_SIZE + 8;
}

function* merged(
  index: ReadonlyMap<string, Uint8Array>,
  overlay: ReadonlyMap<string, Uint8Array>,
): Generator<[string, Uint8Array]> {
  for (const entry of index) if (!overlay.has(entry[0])) yield entry;
  for (const [key, value] of overlay) if (value !== DELETED) yield [key, value];
}

function writeError(error: unknown): SimError {
  if (error instanceof SimError) return error;
  if (error instanceof FlashFsError) {
    return error.code === "full" ? storageFull() : flashWriteFailed(error.message);
  }
  return flashWriteFailed(String((error as Error)?.message ?? error));
}

function openError(error: unknown): unknown {
  if (error instanceof SimError) return error;
  if (error instanceof FlashFsError) return flashUnreadable(error.message);
  return error;
}
