import type { NoteCodec } from "./NoteCodec.js";
import type { KvStore, RecoveryReport, StorageUsage } from "./KvStore.js";
import { KvTransactions, type SuspendedTransaction } from "./KvTransactions.js";
import type { Note, NotefileMeta } from "./Note.js";
import { Notefile } from "./Notefile.js";
import { encodeUtf8 } from "../../core/bytes.js";
import { notefileKind } from "../../core/NotefileKind.js";
import { TemplateNoteCodec } from "./TemplateNoteCodec.js";

/** Separates the parts of a record key; cannot occur in names the host can send in JSON text. */
const SEP = "\u001f";
const fileKey = (file: string) => `f${SEP}${file}`;
const noteKey = (file: string, id: string) => `n${SEP}${file}${SEP}${id}`;
const notePrefix = (file: string) => `n${SEP}${file}${SEP}`;
const trackerKey = (tracker: string, file: string) => `t${SEP}${tracker}${SEP}${file}`;
const trackerPrefix = (tracker: string) => `t${SEP}${tracker}${SEP}`;
const configKey = (key: string) => `c${SEP}${key}`;

/**
 * A copy of `note` with its change number. Not `{ ...note, change }`: on Node 20's V8 an object
 * made by a spread and given one more member gets a hidden class of its own, so every stored note
 * had one, each read of a note's members anywhere in the module was a megamorphic lookup, and
 * each note carried a hidden class's memory. Copied by `Object.assign`, notes of one shape share one.
 */
export function withChange(note: Omit<Note, "change">, change: number, key?: string): Note {
  const stored = Object.assign({}, note) as Note;
  stored.change = change;
  if (key !== undefined) (stored as { key?: string }).key = key;
  return stored;
}

const decoder = new TextDecoder();
const json = (value: unknown) => encodeUtf8(JSON.stringify(value));
const unjson = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes));

/** Splits a record key into its kind and name parts (used by `flash inspect` too). */
export function parseRecordKey(key: string): { kind: string; parts: string[] } {
  const [kind = "", ...parts] = key.split(SEP);
  return { kind, parts };
}

export type { SuspendedTransaction } from "./KvTransactions.js";

/**
 * The module's persistent state: notefiles with their notes, change trackers, and configuration
 * records, kept in RAM and journalled to a KvStore. Every change happens inside `transact`, which
 * commits the request's changes as one atomic batch before the request replies, and rolls RAM
 * back if the request fails or the store refuses the batch.
 */
export class Notebox {
  readonly #store: KvStore;
  readonly #codec: NoteCodec;
  readonly #files = new Map<string, Notefile>();
  readonly #trackers = new Map<string, Map<string, number>>();
  readonly #config = new Map<string, unknown>();
  /** Notefiles a request asked to sync now (RAM only, like the module's pending-sync flag). */
  readonly #syncRequests = new Set<string>();
  readonly #transactions: KvTransactions;
  #recovery: RecoveryReport | undefined;

  private constructor(store: KvStore, codec: NoteCodec) {
    this.#store = store;
    this.#codec = codec;
    this.#transactions = new KvTransactions(store);
  }

  /**
   * Reads the store and rebuilds the state. Notes are stored by a `TemplateNoteCodec` unless told
   * otherwise: templated notes in their compact binary form, the others as JSON.
   */
  static async open(store: KvStore, options: { codec?: NoteCodec } = {}): Promise<Notebox> {
    const box = new Notebox(store, options.codec ?? new TemplateNoteCodec());
    const snapshot = await store.open();
    box.#recovery = snapshot.recovery;
    box.#load(snapshot.records);
    return box;
  }

  #load(records: ReadonlyMap<string, Uint8Array>): void {
    const notes: [string, string, string, Uint8Array][] = [];
    for (const [key, value] of records) {
      const { kind, parts } = parseRecordKey(key);
      if (kind === "f" && parts.length === 1) {
        const name = parts[0]!;
        const file = this.#newFile(name, unjson(value) as NotefileMeta);
        if (file) this.#files.set(name, file);
      } else if (kind === "n" && parts.length === 2) {
        notes.push([parts[0]!, parts[1]!, key, value]);
      } else if (kind === "t" && parts.length === 2) {
        const [tracker, file] = parts as [string, string];
        let positions = this.#trackers.get(tracker);
        if (!positions) this.#trackers.set(tracker, (positions = new Map()));
        // The empty file name is the marker of a tracker created before it had positions.
        if (file !== "") positions.set(file, unjson(value) as number);
      } else if (kind === "c" && parts.length === 1) {
        this.#config.set(parts[0]!, unjson(value));
      }
    }
    const decoded: [Notefile, Note][] = [];
    for (const [name, id, key, value] of notes) {
      let file = this.#files.get(name);
      if (!file) {
        const created = this.#newFile(name, { ctr: 0 });
        if (!created) continue;
        this.#files.set(name, (file = created));
      }
      const note = this.#codec.decode(file, id, value);
      (note as { key?: string }).key = key;
      decoded.push([file, note]);
    }
    decoded.sort((a, b) => a[1].change - b[1].change);
    for (const [file, note] of decoded) {
      file.notes.set(note.id, note);
      file.insertOrdered(note);
      if (note.deleted) file.tombstones++;
      if (note.change > file.meta.ctr) file.meta.ctr = note.change;
    }
  }

  #newFile(name: string, meta: NotefileMeta): Notefile | undefined {
    const kind = notefileKind(name);
    return kind ? new Notefile(name, kind, meta) : undefined;
  }

  /** What the store repaired when it was opened, if anything. */
  get recovery(): RecoveryReport | undefined {
    return this.#recovery;
  }

  get store(): KvStore {
    return this.#store;
  }

  get codec(): NoteCodec {
    return this.#codec;
  }

  usage(): StorageUsage {
    return this.#store.usage();
  }

  // --- transactions ------------------------------------------------------------------------

  get inTransaction(): boolean {
    return this.#transactions.active;
  }

  /**
   * Runs `fn`; its changes are committed as one batch and are durable when the returned promise
   * resolves. If `fn` throws or the commit fails, RAM is rolled back and the error rethrown.
   * Transactions do not nest: callers serialize them (the module's WriterQueue).
   */
  transact<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.#transactions.run(fn);
  }

  /**
   * Inside `transact`, before waiting on something slow (the network): commits what the
   * transaction changed so far, which can no longer be rolled back, and steps out of it so that
   * other transactions can run during the wait. `resume` steps back in; the rest of the work
   * commits when `transact` ends.
   */
  suspend(): Promise<SuspendedTransaction> {
    return this.#transactions.suspend();
  }

  /** Steps back into a suspended transaction (no other may be running). */
  resume(suspended: SuspendedTransaction): void {
    this.#transactions.resume(suspended);
  }

  // --- notefiles -----------------------------------------------------------------------------

  file(name: string): Notefile | undefined {
    return this.#files.get(name);
  }

  files(): IterableIterator<Notefile> {
    return this.#files.values();
  }

  /** Creates the notefile if it does not exist. Throws for names without a known extension. */
  ensureFile(name: string): Notefile {
    const existing = this.#files.get(name);
    if (existing) return existing;
    const tx = this.#transactions.current();
    const file = this.#newFile(name, { ctr: 0 });
    if (!file) throw new Error(`Notebox.ensureFile: ${name} has no notefile extension`);
    this.#files.set(name, file);
    tx.ops.push({ op: "put", key: fileKey(name), value: json(file.meta) });
    tx.undo.push(() => this.#files.delete(name));
    return file;
  }

  /** Replaces the notefile's persisted metadata (templates, sync state); `ctr` is kept. */
  setFileMeta(file: Notefile, meta: Omit<NotefileMeta, "ctr">): void {
    const tx = this.#transactions.current();
    const old = file.meta;
    file.meta = { ...meta, ctr: old.ctr };
    tx.ops.push({ op: "put", key: fileKey(file.name), value: json(file.meta) });
    tx.undo.push(() => (file.meta = old));
  }

  deleteFile(name: string): void {
    const file = this.#files.get(name);
    if (!file) return;
    const tx = this.#transactions.current();
    this.#files.delete(name);
    tx.ops.push({ op: "deletePrefix", prefix: notePrefix(name) }, { op: "delete", key: fileKey(name) });
    tx.undo.push(() => this.#files.set(name, file));
    for (const [tracker, positions] of this.#trackers) {
      if (positions.has(name)) this.#setTrackerPosition(tracker, name, undefined);
    }
  }

  // --- notes ---------------------------------------------------------------------------------

  /**
   * Stores `note` (new or replacing the note with the same ID), giving it the file's next change
   * number. Returns the stored note. A `volatile` note lives in RAM only and is gone after a
   * restart (`note.add` with `live:true`, which bypasses flash).
   */
  putNote(file: Notefile, note: Omit<Note, "change">, options: { volatile?: boolean } = {}): Note {
    const tx = this.#transactions.current();
    const previous = file.notes.get(note.id);
    const oldCtr = file.meta.ctr;
    const key = previous?.key ?? noteKey(file.name, note.id);
    const stored = withChange(note, ++file.meta.ctr, key);
    // Re-inserting moves the note to the end, keeping ascending change order.
    file.notes.delete(note.id);
    file.notes.set(note.id, stored);
    if (previous) file.removeOrdered(previous);
    file.insertOrdered(stored);
    const tombstoneDelta = (stored.deleted ? 1 : 0) - (previous?.deleted ? 1 : 0);
    file.tombstones += tombstoneDelta;
    if (options.volatile) {
      // A volatile note may replace a stored one of the same ID; the stored copy must go. The
      // change counter is persisted so that after a restart, when the note is gone, its change
      // number is not handed out again (a tracker may already have seen it).
      if (previous) tx.ops.push({ op: "delete", key });
      tx.ops.push({ op: "put", key: fileKey(file.name), value: json(file.meta) });
    } else {
      tx.ops.push({ op: "put", key, value: this.#codec.encode(file, stored) });
    }
    tx.undo.push(() => {
      file.meta.ctr = oldCtr;
      file.tombstones -= tombstoneDelta;
      file.notes.delete(note.id);
      file.removeOrdered(stored);
      if (previous) this.#reinsert(file, previous);
    });
    return stored;
  }

  /**
   * Appends a note to a queue notefile, creating the file if needed. Queue note IDs are internal:
   * the change number the note was added at, unique for the life of the file.
   */
  appendToQueue(name: string, content: Pick<Note, "body" | "payload" | "time" | "template" | "where">): Note {
    const file = this.ensureFile(name);
    if (!file.kind.queue) throw new Error(`Notebox.appendToQueue: ${name} is not a queue`);
    const note = Object.assign({}, content) as Omit<Note, "change">;
    (note as { id: string }).id = String(file.meta.ctr + 1);
    note.updates = 0;
    return this.putNote(file, note);
  }

  /** Removes a note outright (queue pops, purged tombstones). */
  removeNote(file: Notefile, id: string): void {
    const note = file.notes.get(id);
    if (!note) return;
    const tx = this.#transactions.current();
    file.notes.delete(id);
    file.removeOrdered(note);
    if (note.deleted) file.tombstones--;
    tx.ops.push({ op: "delete", key: note.key ?? noteKey(file.name, id) });
    // On load the change counter is the larger of the stored one and the newest note's change.
    // Only removing the newest note could take it backwards, so only then is it stored.
    if (note.change >= file.meta.ctr)
      tx.ops.push({ op: "put", key: fileKey(file.name), value: json(file.meta) });
    tx.undo.push(() => {
      if (note.deleted) file.tombstones++;
      this.#reinsert(file, note);
    });
  }

  /**
   * Removes the notes of `file` changed up to `change` (queue notes the hub took): one pass over
   * the file however many there are. Returns how many went.
   */
  removeNotesThrough(file: Notefile, change: number): number {
    const end = file.indexAfter(change);
    if (end === 0) return 0;
    const tx = this.#transactions.current();
    const removed = file.orderedSlice(0, end);
    let tombstones = 0;
    for (const note of removed) {
      file.notes.delete(note.id);
      if (note.deleted) tombstones++;
      tx.ops.push({ op: "delete", key: note.key ?? noteKey(file.name, note.id) });
    }
    file.removeOrderedPrefix(end);
    file.tombstones -= tombstones;
    if (change >= file.meta.ctr) tx.ops.push({ op: "put", key: fileKey(file.name), value: json(file.meta) });
    tx.undo.push(() => {
      file.tombstones += tombstones;
      const rest = [...file.notes];
      file.notes.clear();
      for (const note of removed) file.notes.set(note.id, note);
      for (const [id, note] of rest) file.notes.set(id, note);
      file.restoreOrderedPrefix(removed);
    });
    return removed.length;
  }

  /** Removes every note of a file, keeping the file, its metadata and its change counter. */
  clearNotes(file: Notefile): void {
    if (file.notes.size === 0) return;
    const tx = this.#transactions.current();
    const notes = new Map(file.notes);
    const tombstones = file.tombstones;
    file.notes.clear();
    file.clearOrdered();
    file.tombstones = 0;
    tx.ops.push(
      { op: "deletePrefix", prefix: notePrefix(file.name) },
      { op: "put", key: fileKey(file.name), value: json(file.meta) },
    );
    tx.undo.push(() => {
      for (const [id, note] of notes) {
        file.notes.set(id, note);
        file.insertOrdered(note);
      }
      file.tombstones = tombstones;
    });
  }

  /** Puts a note back at its place in change order. */
  #reinsert(file: Notefile, note: Note): void {
    file.insertOrdered(note);
    const later = [...file.notes.values()].filter((n) => n.change > note.change);
    for (const n of later) file.notes.delete(n.id);
    file.notes.set(note.id, note);
    for (const n of later) file.notes.set(n.id, n);
  }

  // --- trackers ------------------------------------------------------------------------------

  /** The change number a tracker has seen up to in a file; undefined when it has no position. */
  trackerPosition(tracker: string, file: string): number | undefined {
    return this.#trackers.get(tracker)?.get(file);
  }

  hasTracker(tracker: string): boolean {
    return this.#trackers.has(tracker);
  }

  trackers(): IterableIterator<string> {
    return this.#trackers.keys();
  }

  setTrackerPosition(tracker: string, file: string, position: number): void {
    this.#setTrackerPosition(tracker, file, position);
  }

  /** Forgets where a tracker is in one file (it starts from the beginning next time). */
  clearTrackerPosition(tracker: string, file: string): void {
    if (this.#trackers.get(tracker)?.has(file)) this.#setTrackerPosition(tracker, file, undefined);
  }

  /** Marks a tracker as existing even before it has positions. */
  createTracker(tracker: string): void {
    if (this.#trackers.has(tracker)) return;
    const tx = this.#transactions.current();
    this.#trackers.set(tracker, new Map());
    tx.ops.push({ op: "put", key: trackerKey(tracker, ""), value: json(0) });
    tx.undo.push(() => this.#trackers.delete(tracker));
  }

  deleteTracker(tracker: string): void {
    const positions = this.#trackers.get(tracker);
    if (!positions) return;
    const tx = this.#transactions.current();
    this.#trackers.delete(tracker);
    tx.ops.push({ op: "deletePrefix", prefix: trackerPrefix(tracker) });
    tx.undo.push(() => this.#trackers.set(tracker, positions));
  }

  #setTrackerPosition(tracker: string, file: string, position: number | undefined): void {
    const tx = this.#transactions.current();
    let positions = this.#trackers.get(tracker);
    const created = !positions;
    if (!positions) this.#trackers.set(tracker, (positions = new Map()));
    const old = positions.get(file);
    const map = positions;
    if (position === undefined) {
      map.delete(file);
      tx.ops.push({ op: "delete", key: trackerKey(tracker, file) });
    } else {
      map.set(file, position);
      tx.ops.push({ op: "put", key: trackerKey(tracker, file), value: json(position) });
    }
    tx.undo.push(() => {
      if (old === undefined) map.delete(file);
      else map.set(file, old);
      if (created) this.#trackers.delete(tracker);
    });
  }

  // --- sync requests -------------------------------------------------------------------------

  /**
   * Records that a request asked for `file` to be synced now (`note.add sync:true`, `var.set
   * sync:true`, ...). Kept in RAM until the sync engine takes it; dropped if the request fails.
   */
  requestSync(file: string): void {
    if (this.#syncRequests.has(file)) return;
    const tx = this.#transactions.current();
    this.#syncRequests.add(file);
    tx.undo.push(() => this.#syncRequests.delete(file));
  }

  /** Notefiles with a sync request pending, oldest request first. */
  syncRequests(): ReadonlySet<string> {
    return this.#syncRequests;
  }

  /** Hands the pending sync requests to the sync engine and clears them. */
  takeSyncRequests(): string[] {
    const files = [...this.#syncRequests];
    this.#syncRequests.clear();
    return files;
  }

  // --- configuration records -----------------------------------------------------------------

  config<T>(key: string): T | undefined {
    return this.#config.get(key) as T | undefined;
  }

  /** Keys of the configuration records that start with `prefix`. */
  configKeys(prefix: string): string[] {
    const keys: string[] = [];
    for (const key of this.#config.keys()) if (key.startsWith(prefix)) keys.push(key);
    return keys;
  }

  /** Sets (or, with undefined, deletes) a configuration record. Values must be JSON. */
  setConfig(key: string, value: unknown): void {
    const tx = this.#transactions.current();
    const had = this.#config.has(key);
    const old = this.#config.get(key);
    if (value === undefined) {
      if (!had) return;
      this.#config.delete(key);
      tx.ops.push({ op: "delete", key: configKey(key) });
    } else {
      this.#config.set(key, value);
      tx.ops.push({ op: "put", key: configKey(key), value: json(value) });
    }
    tx.undo.push(() => {
      if (had) this.#config.set(key, old);
      else this.#config.delete(key);
    });
  }

  /** Erases everything: notefiles, trackers and configuration (factory reset). */
  eraseAll(): void {
    const tx = this.#transactions.current();
    const files = new Map(this.#files);
    const trackers = new Map(this.#trackers);
    const config = new Map(this.#config);
    this.#files.clear();
    this.#trackers.clear();
    this.#config.clear();
    tx.ops.push({ op: "deletePrefix", prefix: "" });
    tx.undo.push(() => {
      for (const [k, v] of files) this.#files.set(k, v);
      for (const [k, v] of trackers) this.#trackers.set(k, v);
      for (const [k, v] of config) this.#config.set(k, v);
    });
  }
}
