import {
  decodeBatchInto,
  keyByteLength,
  MalformedBatchError,
  OP_DELETE,
  OP_PUT,
  putRecordSize,
} from "./BatchCodec.js";
import { FILE_HEADER_SIZE, FrameType, isFrameStart, readFrameAt, type Frame } from "./JournalFormat.js";

/** What replaying one journal file found. */
export interface JournalReplay {
  /** Live records after replaying every intact frame (values are views into the file bytes). */
  readonly records: Map<string, Uint8Array>;
  /** Bytes the live records take as put records (what a compaction writes, before framing). */
  readonly liveRecordBytes: number;
  /** Offset just past the last intact frame: where appending continues. */
  readonly end: number;
  /** Sequence number of the last intact frame. */
  readonly lastSequence: number;
  /** Bytes after `end` holding no intact frame: a write torn by a power loss. */
  readonly tornBytes: number;
  /** Damaged stretches between intact frames (bit rot, not power loss: appends never do this). */
  readonly damaged: readonly { readonly offset: number; readonly length: number }[];
  /** Frames known lost, from gaps in the sequence numbers and frames that would not decode. */
  readonly lostFrames: number;
  /** True when the compacted state at the start of the file was read whole. */
  readonly baseComplete: boolean;
  /** Records of the compacted state that were lost (when its end frame tells how many). */
  readonly baseRecordsLost: number;
  /** Commit frames replayed. */
  readonly commits: number;
}

/**
 * Replays a journal file: the compacted state (base frames, then the base end frame), then each
 * committed batch in order. Never throws on bad bytes: an intact frame is recognised by its
 * magic byte, header check and CRC-32, and the replay steps over damage to the next intact frame
 * with a higher sequence number. Whatever follows the last intact frame is a torn tail.
 */
export function replayJournal(bytes: Uint8Array): JournalReplay {
  const records = new Map<string, Uint8Array>();
  const damaged: { offset: number; length: number }[] = [];
  let at = Math.min(FILE_HEADER_SIZE, bytes.length);
  let end = at;
  let lastSequence = 0;
  let lostFrames = 0;
  let commits = 0;
  let baseEnded = false;
  let baseRecords = 0;
  let baseRecordsExpected: number | undefined;
  let live = 0;
  const flat: unknown[] = [];
  const remove = (key: string, keyBytes: number) => {
    const old = records.get(key);
    if (old === undefined) return;
    live -= putRecordSize(keyBytes, old.length);
    records.delete(key);
  };
  const put = (key: string, keyBytes: number, value: Uint8Array) => {
    const old = records.get(key);
    if (old !== undefined) live -= putRecordSize(keyBytes, old.length);
    records.set(key, value);
    live += putRecordSize(keyBytes, value.length);
  };

  while (at < bytes.length) {
    let frame = readFrameAt(bytes, at);
    if (frame && frame.sequence !== lastSequence + 1) frame = undefined;
    if (!frame) {
      const next = findFrame(bytes, at + 1, lastSequence);
      if (!next) break;
      damaged.push({ offset: at, length: next.offset - at });
      lostFrames += Math.max(1, next.frame.sequence - lastSequence - 1);
      frame = next.frame;
    }
    lastSequence = frame.sequence;
    at = end = frame.end;
    try {
      if (frame.type === FrameType.base) {
        if (baseEnded) {
          lostFrames++;
          continue;
        }
        decodeBatchInto(frame.payload, flat);
        for (let i = 0; i < flat.length; i += 4) {
          if (flat[i] !== OP_PUT) throw new MalformedBatchError("base chunk holds a non-put record");
        }
        for (let i = 0; i < flat.length; i += 4) {
          put(flat[i + 1] as string, flat[i + 2] as number, flat[i + 3] as Uint8Array);
          baseRecords++;
        }
      } else if (frame.type === FrameType.baseEnd) {
        if (frame.payload.length !== 8 || baseEnded) throw new MalformedBatchError("bad base end frame");
        baseEnded = true;
        baseRecordsExpected = new DataView(frame.payload.buffer, frame.payload.byteOffset, 8).getUint32(
          0,
          true,
        );
      } else {
        decodeBatchInto(frame.payload, flat);
        for (let i = 0; i < flat.length; i += 4) {
          const code = flat[i];
          const key = flat[i + 1] as string;
          if (code === OP_PUT) put(key, flat[i + 2] as number, flat[i + 3] as Uint8Array);
          else if (code === OP_DELETE) remove(key, flat[i + 2] as number);
          else for (const k of records.keys()) if (k.startsWith(key)) remove(k, keyByteLength(k));
        }
        commits++;
      }
    } catch (error) {
      if (!(error instanceof MalformedBatchError)) throw error;
      lostFrames++;
    }
  }

  const baseRecordsLost =
    baseRecordsExpected !== undefined ? Math.max(0, baseRecordsExpected - baseRecords) : 0;
  return {
    records,
    liveRecordBytes: live,
    end,
    lastSequence,
    tornBytes: bytes.length - end,
    damaged,
    lostFrames,
    baseComplete: baseEnded && baseRecordsLost === 0,
    baseRecordsLost,
    commits,
  };
}

/** The next intact frame at or after `from` whose sequence number follows `after`. */
function findFrame(
  bytes: Uint8Array,
  from: number,
  after: number,
): { offset: number; frame: Frame } | undefined {
  for (let at = from; at < bytes.length; at++) {
    if (!isFrameStart(bytes[at]!)) continue;
    const frame = readFrameAt(bytes, at);
    if (frame && frame.sequence > after) return { offset: at, frame };
  }
  return undefined;
}
