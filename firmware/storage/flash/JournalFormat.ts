import { crc32 } from "../../host/crc32.js";

/**
 * The byte layout of a journal file (described for users in docs/storage-format.md).
 *
 * File header, 20 bytes: magic `CSJOURNL`, u16 format version, u16 flags (0), u32 generation,
 * u32 CRC-32 of the 16 bytes before it. Magic, version and CRC keep their places in every future
 * version, so an older reader can always tell a newer file (CRC good, version higher) from a
 * damaged one (CRC bad).
 *
 * Then frames, 16-byte header + payload: u8 magic 0xC5, u8 type, u32 payload length, u32
 * sequence number (1, 2, 3... within the file), u32 CRC-32 of bytes 1-9 and the payload, u16 low
 * half of the CRC-32 of header bytes 0-13. All integers little-endian.
 */
export const JOURNAL_VERSION = 1;
export const JOURNAL_MAGIC = new TextEncoder().encode("CSJOURNL");
export const FILE_HEADER_SIZE = 20;
export const FRAME_HEADER_SIZE = 16;
export const FRAME_MAGIC = 0xc5;

/** Put records of the compacted state, packed greedily into frames of at most this payload. */
export const BASE_CHUNK_BYTES = 64 * 1024;

export const FrameType = {
  /** A chunk of put records of the compacted state the file starts from. */
  base: 0x42,
  /** Ends the compacted state: u32 record count, u32 chunk count. */
  baseEnd: 0x45,
  /** One committed batch of operations. */
  commit: 0x43,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

const FRAME_TYPES = new Set<number>(Object.values(FrameType));

export type HeaderCheck =
  | { readonly ok: true; readonly generation: number }
  | { readonly ok: false; readonly problem: "not-a-journal" | "damaged" }
  | { readonly ok: false; readonly problem: "too-new"; readonly version: number };

export function encodeFileHeader(generation: number): Uint8Array {
  const bytes = new Uint8Array(FILE_HEADER_SIZE);
  const view = new DataView(bytes.buffer);
  bytes.set(JOURNAL_MAGIC, 0);
  view.setUint16(8, JOURNAL_VERSION, true);
  view.setUint16(10, 0, true);
  view.setUint32(12, generation, true);
  view.setUint32(16, crc32(bytes.subarray(0, 16)), true);
  return bytes;
}

export function checkFileHeader(bytes: Uint8Array): HeaderCheck {
  if (bytes.length < 10 || !JOURNAL_MAGIC.every((b, i) => bytes[i] === b)) {
    return { ok: false, problem: "not-a-journal" };
  }
  if (bytes.length < FILE_HEADER_SIZE) return { ok: false, problem: "damaged" };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(16, true) !== crc32(bytes.subarray(0, 16))) return { ok: false, problem: "damaged" };
  const version = view.getUint16(8, true);
  if (version > JOURNAL_VERSION) return { ok: false, problem: "too-new", version };
  if (version !== JOURNAL_VERSION) return { ok: false, problem: "damaged" };
  return { ok: true, generation: view.getUint32(12, true) };
}

export function encodeFrame(type: FrameType, sequence: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(FRAME_HEADER_SIZE + payload.length);
  const view = new DataView(frame.buffer);
  frame[0] = FRAME_MAGIC;
  frame[1] = type;
  view.setUint32(2, payload.length, true);
  view.setUint32(6, sequence, true);
  frame.set(payload, FRAME_HEADER_SIZE);
  view.setUint32(10, crc32(payload, crc32(frame.subarray(1, 10))), true);
  view.setUint16(14, crc32(frame.subarray(0, 14)) & 0xffff, true);
  return frame;
}

export interface Frame {
  readonly type: FrameType;
  readonly sequence: number;
  readonly payload: Uint8Array;
  /** Offset just past the frame. */
  readonly end: number;
}

/** The frame starting at `offset` if one is there intact, else undefined. */
export function readFrameAt(bytes: Uint8Array, offset: number): Frame | undefined {
  if (offset + FRAME_HEADER_SIZE > bytes.length || bytes[offset] !== FRAME_MAGIC) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, FRAME_HEADER_SIZE);
  if (view.getUint16(14, true) !== (crc32(bytes.subarray(offset, offset + 14)) & 0xffff)) return undefined;
  const type = bytes[offset + 1]!;
  if (!FRAME_TYPES.has(type)) return undefined;
  const length = view.getUint32(2, true);
  const end = offset + FRAME_HEADER_SIZE + length;
  if (end > bytes.length) return undefined;
  const payload = bytes.subarray(offset + FRAME_HEADER_SIZE, end);
  const crc = crc32(payload, crc32(bytes.subarray(offset + 1, offset + 10)));
  if (view.getUint32(10, true) !== crc) return undefined;
  return { type: type as FrameType, sequence: view.getUint32(6, true), payload, end };
}

export function journalName(generation: number): string {
  return `journal.${generation}`;
}

/** The generation of a journal file name, or undefined for other names. */
export function journalGeneration(name: string): number | undefined {
  const match = /^journal\.([1-9][0-9]{0,9})$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
