import { flashNotOurs, flashTooNew } from "../../errors.js";
import type { SimError } from "../../SimError.js";
import type { FlashFs } from "./FlashFs.js";
import {
  checkFileHeader,
  JOURNAL_VERSION,
  journalGeneration,
  journalName,
  type HeaderCheck,
} from "./JournalFormat.js";
import { replayJournal, type JournalReplay } from "./JournalReader.js";
import { checkSuperblock, FORMAT_VERSION, SUPERBLOCK_NAME, type SuperblockCheck } from "./Superblock.js";

export interface JournalCandidate {
  readonly generation: number;
  readonly size: number;
  readonly header: HeaderCheck;
  readonly replay: JournalReplay;
}

/** What is on a flash directory, read without changing anything (boot and `flash inspect`). */
export interface FlashScan {
  /** Undefined when there is no `flash.json`. */
  readonly superblock: SuperblockCheck | undefined;
  /** Every file in the directory; `size` for the files the scan read. */
  readonly files: readonly { readonly name: string; readonly size?: number }[];
  /** The journal the state comes from; undefined for an empty (new) flash. */
  readonly chosen: JournalCandidate | undefined;
  /** True when `chosen` is not whole (damaged header or compacted state) and must be rewritten. */
  readonly salvaged: boolean;
  /** Journals that could not be used (kept aside as `.damaged`). */
  readonly rejected: readonly JournalCandidate[];
  /** Older journals left behind by an interrupted compaction. */
  readonly stale: readonly number[];
  /** Temporary files of an interrupted atomic replacement. */
  readonly temporary: readonly string[];
  /** Highest generation number present, damaged journals included (0 when none). */
  readonly maxGeneration: number;
  /** What opening the flash repairs, one line each (empty when the flash is clean). */
  readonly problems: readonly string[];
  readonly truncatedBytes: number;
  readonly droppedRecords: number;
  /** Set when the flash must not be used: a newer format, or somebody else's directory. */
  readonly fatal?: SimError;
}

/** Reads a flash directory and works out which journal holds its state and what needs repair. */
export async function scanFlash(fs: FlashFs): Promise<FlashScan> {
  const names = await fs.list();
  const sizes = new Map<string, number>();
  const read = async (name: string): Promise<Uint8Array> => {
    const bytes = (await fs.read(name)) ?? new Uint8Array();
    sizes.set(name, bytes.length);
    return bytes;
  };

  const superblock = names.includes(SUPERBLOCK_NAME)
    ? checkSuperblock(await read(SUPERBLOCK_NAME))
    : undefined;
  const base = {
    superblock,
    chosen: undefined,
    salvaged: false,
    rejected: [],
    stale: [],
    temporary: [],
    maxGeneration: 0,
    problems: [],
    truncatedBytes: 0,
    droppedRecords: 0,
  };
  if (superblock && !superblock.ok && superblock.problem === "too-new") {
    return { ...base, files: [], fatal: flashTooNew(SUPERBLOCK_NAME, superblock.version, FORMAT_VERSION) };
  }
  if (superblock && !superblock.ok && superblock.problem === "not-ours") {
    return { ...base, files: [], fatal: flashNotOurs(SUPERBLOCK_NAME) };
  }

  const generations = names
    .map(journalGeneration)
    .filter((g): g is number => g !== undefined)
    .sort((a, b) => b - a);
  const problems: string[] = [];
  const rejected: JournalCandidate[] = [];
  let chosen: JournalCandidate | undefined;
  for (const generation of generations) {
    const bytes = await read(journalName(generation));
    const header = checkFileHeader(bytes);
    if (!header.ok && header.problem === "too-new") {
      return {
        ...base,
        files: [],
        fatal: flashTooNew(journalName(generation), header.version, JOURNAL_VERSION),
      };
    }
    const candidate = { generation, size: bytes.length, header, replay: replayJournal(bytes) };
    if (header.ok && header.generation === generation && candidate.replay.baseComplete) {
      chosen = candidate;
      break;
    }
    rejected.push(candidate);
  }

  let salvaged = false;
  if (!chosen && rejected.length > 0) {
    // Nothing is whole: keep what the least damaged journal still holds.
    chosen = rejected.reduce((best, c) => (c.replay.records.size > best.replay.records.size ? c : best));
    rejected.splice(rejected.indexOf(chosen), 1);
    salvaged = true;
  }

  let truncatedBytes = 0;
  let droppedRecords = 0;
  for (const r of rejected) {
    problems.push(
      `${journalName(r.generation)} is damaged (${describeDamage(r)}); kept aside as ${journalName(r.generation)}.damaged` +
        (chosen ? `, state taken from ${journalName(chosen.generation)}` : ""),
    );
  }
  const stale = generations.filter((g) => chosen && g < chosen.generation);
  for (const g of stale) {
    problems.push(`removed ${journalName(g)}, left behind by an interrupted compaction`);
  }
  const temporary = names.filter(
    (n) => n.endsWith(".tmp") && (n.startsWith("journal.") || n === `${SUPERBLOCK_NAME}.tmp`),
  );
  for (const t of temporary) {
    problems.push(
      t.startsWith("journal.")
        ? `discarded ${t}, an unfinished compaction`
        : `discarded ${t}, an unfinished update of ${SUPERBLOCK_NAME}`,
    );
  }

  if (chosen) {
    const name = journalName(chosen.generation);
    const replay = chosen.replay;
    if (salvaged) {
      problems.push(
        `${name} is damaged (${describeDamage(chosen)}); salvaged ${replay.records.size} records from it, ` +
          `original kept as ${name}.damaged`,
      );
    }
    for (const d of replay.damaged) {
      problems.push(`skipped ${d.length} damaged bytes at offset ${d.offset} of ${name}`);
    }
    if (replay.lostFrames > 0) {
      problems.push(
        `lost ${replay.lostFrames} damaged frame(s) of ${name} (committed batches or chunks of the compacted state)`,
      );
      droppedRecords += replay.lostFrames;
    }
    if (replay.baseRecordsLost > 0) {
      problems.push(`lost ${replay.baseRecordsLost} record(s) of the compacted state in ${name}`);
      droppedRecords += replay.baseRecordsLost;
    }
    if (replay.tornBytes > 0) {
      problems.push(`cut ${replay.tornBytes} bytes of a write torn by a power loss at the end of ${name}`);
      truncatedBytes += replay.tornBytes;
    }
    if (superblock === undefined) problems.push(`${SUPERBLOCK_NAME} was missing; rewritten`);
    else if (!superblock.ok) problems.push(`${SUPERBLOCK_NAME} was damaged; rewritten`);
  } else if (superblock !== undefined) {
    problems.push(`no journal found: the flash directory lost its data files; starting with an empty flash`);
  }

  return {
    superblock,
    files: names.map((name) => ({ name, size: sizes.get(name) })),
    chosen,
    salvaged,
    rejected,
    stale,
    temporary,
    maxGeneration: generations[0] ?? 0,
    problems,
    truncatedBytes,
    droppedRecords,
  };
}

function describeDamage(c: JournalCandidate): string {
  if (!c.header.ok) {
    const framesFound = c.replay.lastSequence > 0;
    return c.header.problem === "not-a-journal" && !framesFound
      ? "not a journal file"
      : "damaged file header";
  }
  if (c.header.generation !== c.generation) return `header names generation ${c.header.generation}`;
  if (c.replay.baseRecordsLost > 0) return `${c.replay.baseRecordsLost} records of its compacted state lost`;
  return "its compacted state is incomplete";
}
