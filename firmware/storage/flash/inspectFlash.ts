import type { KvOp, KvSnapshot, KvStore, StorageUsage } from "../KvStore.js";
import { Notebox, parseRecordKey } from "../Notebox.js";
import { keyByteLength, putRecordSize } from "./BatchCodec.js";
import { DEFAULT_FLASH_CAPACITY } from "./FlashKvStore.js";
import type { FlashFs } from "./FlashFs.js";
import { scanFlash } from "./FlashScan.js";
import { journalName } from "./JournalFormat.js";
import type { JsonObject } from "../../../core/json.js";

export interface InspectedNote {
  readonly id: string;
  readonly change: number;
  readonly time: number;
  readonly updates: number;
  readonly deleted: boolean;
  readonly body?: JsonObject;
  readonly payloadBytes: number;
  readonly template?: number;
  /** Bytes the note's record takes in the journal's compacted form. */
  readonly bytes: number;
}

export interface InspectedNotefile {
  readonly name: string;
  readonly notes: number;
  readonly tombstones: number;
  /** Bytes of the file's records (metadata and notes) in compacted form. */
  readonly bytes: number;
  readonly meta: JsonObject;
  readonly list: readonly InspectedNote[];
}

/** What `cardsim flash inspect` shows about a module's flash. */
export interface FlashInspection {
  readonly formatVersion: number | undefined;
  readonly generation: number | undefined;
  readonly capacity: number;
  /** Bytes of the superblock and the current journal. */
  readonly used: number;
  /** Bytes the live records take (what a compaction keeps). */
  readonly liveBytes: number;
  readonly records: number;
  readonly files: readonly { readonly name: string; readonly size?: number }[];
  readonly notefiles: readonly InspectedNotefile[];
  readonly trackers: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly config: Readonly<Record<string, unknown>>;
  /** What the next boot will repair (the same lines the module logs and notes in `_health.qo`). */
  readonly problems: readonly string[];
  /** Set when a module would refuse this flash. */
  readonly fatal?: string;
}

/**
 * Reads a module's flash without changing it (a module may be running on it) and decodes its
 * state: notefiles with their notes, trackers, configuration, space used, and pending repairs.
 */
export async function inspectFlash(fs: FlashFs): Promise<FlashInspection> {
  const scan = await scanFlash(fs);
  const files = [];
  for (const f of scan.files) files.push({ name: f.name, size: f.size ?? (await fs.read(f.name))?.length });
  files.sort((a, b) => (a.name < b.name ? -1 : 1));
  const superblock = scan.superblock?.ok ? scan.superblock.superblock : undefined;
  const capacity = superblock?.capacity ?? DEFAULT_FLASH_CAPACITY;
  const empty = {
    formatVersion: superblock?.version,
    generation: scan.chosen?.generation,
    capacity,
    used: 0,
    liveBytes: 0,
    records: 0,
    files,
    notefiles: [],
    trackers: {},
    config: {},
    problems: scan.problems,
  };
  if (scan.fatal) return { ...empty, fatal: scan.fatal.message };
  const records = scan.chosen?.replay.records ?? new Map<string, Uint8Array>();
  const sizeOf = (key: string) => {
    const value = records.get(key);
    return value ? putRecordSize(keyByteLength(key), value.length) : 0;
  };
  let liveBytes = 0;
  const fileBytes = new Map<string, number>();
  const noteBytes = new Map<string, number>();
  for (const key of records.keys()) {
    const size = sizeOf(key);
    liveBytes += size;
    const { kind, parts } = parseRecordKey(key);
    if ((kind === "f" || kind === "n") && parts[0] !== undefined) {
      fileBytes.set(parts[0], (fileBytes.get(parts[0]) ?? 0) + size);
    }
    if (kind === "n" && parts.length === 2) noteBytes.set(JSON.stringify(parts), size);
  }

  const box = await Notebox.open(new SnapshotStore(records));
  const notefiles: InspectedNotefile[] = [];
  for (const file of box.files()) {
    const list: InspectedNote[] = [...file.notes.values()].map((note) => ({
      id: note.id,
      change: note.change,
      time: note.time,
      updates: note.updates,
      deleted: note.deleted ?? false,
      ...(note.body !== undefined ? { body: note.body } : {}),
      payloadBytes: note.payload?.length ?? 0,
      ...(note.template !== undefined ? { template: note.template } : {}),
      bytes: noteBytes.get(JSON.stringify([file.name, note.id])) ?? 0,
    }));
    notefiles.push({
      name: file.name,
      notes: file.total,
      tombstones: file.tombstones,
      bytes: fileBytes.get(file.name) ?? 0,
      meta: file.meta as JsonObject,
      list,
    });
  }
  notefiles.sort((a, b) => (a.name < b.name ? -1 : 1));
  const trackers: Record<string, Record<string, number>> = {};
  for (const tracker of box.trackers()) {
    trackers[tracker] = {};
    for (const file of box.files()) {
      const position = box.trackerPosition(tracker, file.name);
      if (position !== undefined) trackers[tracker][file.name] = position;
    }
  }
  const config: Record<string, unknown> = {};
  for (const key of records.keys()) {
    const { kind, parts } = parseRecordKey(key);
    if (kind === "c" && parts[0] !== undefined) config[parts[0]] = redacted(parts[0], box.config(parts[0]));
  }
  const journal = scan.chosen
    ? files.find((f) => f.name === journalName(scan.chosen!.generation))
    : undefined;
  const superblockFile = files.find((f) => f.name === "flash.json");
  return {
    ...empty,
    used: (journal?.size ?? 0) - (scan.chosen?.replay.tornBytes ?? 0) + (superblockFile?.size ?? 0),
    liveBytes,
    records: records.size,
    notefiles,
    trackers,
    config,
  };
}

/** The scanned records as a store Notebox can read; inspecting never writes. */
class SnapshotStore implements KvStore {
  constructor(readonly records: ReadonlyMap<string, Uint8Array>) {}
  async open(): Promise<KvSnapshot> {
    return { records: this.records };
  }
  async commit(_ops: readonly KvOp[]): Promise<void> {
    throw new Error("flash inspection is read-only");
  }
  usage(): StorageUsage {
    return { used: 0, capacity: 0 };
  }
  async close(): Promise<void> {}
}

/** A setting as inspection shows it: the module's private key never leaves the flash. */
function redacted(key: string, value: unknown): unknown {
  if (key !== "identity.key" || typeof value !== "object" || value === null) return value;
  return { ...(value as Record<string, unknown>), private: "(not shown)" };
}
