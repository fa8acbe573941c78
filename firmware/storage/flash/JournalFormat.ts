import { crc32 } from "../../../core/crc32.js";

/**
 * The byte layout of a journal file (described for users in docs/storage-format.md).
 *
 * File header, 20 bytes: magic `CSJOURNL`, u16 format version, u16 flags (0), u32 generation,
 * u32 CRC-32 of the 16 bytes before it. Magic, version and CRC keep their places in every future
 * version, so an older reader can always tell a newer file (CRC good, version higher) from a
 * damaged one (CRC bad).
 *
 * Then frames, an 8 to 16-byte header and the payload: u8 type (0xC1-0xC3, its high bits a
 * magic), payload length and sequence number (1, 2, 3... within the file) as unsigned LEB128
 * varints, u8 header check (low byte of the CRC-32 of the header bytes before it), u32 CRC-32 of
 * the header bytes before the check followed by the payload. Integers are little-endian. A
 * commit of a small batch costs 8 to 10 bytes of framing.
 */
export const JOURNAL_VERSION = 1;
export const JOURNAL_MAGIC = new TextEncoder().encode("CSJOURNL");
export const FILE_HEADER_SIZE = 20;
/** The longest frame header (5-byte varints); most are 8 to 10 bytes. */
export const MAX_FRAME_HEADER_SIZE = 16;

/** Put records of the compacted state, packed greedily into frames of at most this payload. */
export const BASE_CHUNK_BYTES = 64 * 1024;

export const FrameType = {
  /** A chunk of put records of the compacted state the file starts from. */
  base: 0xc1,
  /** Ends the compacted state: u32 record count, u32 chunk count. */
  baseEnd: 0xc2,
  /** One committed batch of operations. */
  commit: 0xc3,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

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

function varintLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
}

/** Bytes of framing for a payload of `length` bytes at `sequence`. */
export function frameHeaderSize(length: number, sequence: number): number {
  return 1 + varintLength(length) + varintLength(sequence) + 1 + 4;
}

export function encodeFrame(type: FrameType, sequence: number, payload: Uint8Array): Uint8Array {
  const header = frameHeaderSize(payload.length, sequence);
  const frame = new Uint8Array(header + payload.length);
  frame[0] = type;
  let at = writeVarint(frame, 1, payload.length);
  at = writeVarint(frame, at, sequence);
  const fields = frame.subarray(0, at);
  frame[at] = crc32(fields) & 0xff;
  frame.set(payload, header);
  new DataView(frame.buffer).setUint32(at + 1, crc32(payload, crc32(fields)), true);
  return frame;
}

export interface Frame {
  readonly type: FrameType;
  readonly sequence: number;
  readonly payload: Uint8Array;
  /** Offset just past the frame. */
  readonly end: number;
}

/** Whether `byte` can start a frame (a cheap first filter when looking for one). */
export function isFrameStart(byte: number): boolean {
  return byte >= FrameType.base && byte <= FrameType.commit;
}

/** The frame starting at `offset` if one is there intact, else undefined. */
export function readFrameAt(bytes: Uint8Array, offset: number): Frame | undefined {
  const type = bytes[offset];
  if (type === undefined || !isFrameStart(type)) return undefined;
  let at = offset + 1;
  const varint = (): number | undefined => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5 && at < bytes.length; i++) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value <= 0xffffffff ? value : undefined;
      scale *= 128;
    }
    return undefined;
  };
  const length = varint();
  const sequence = varint();
  if (length === undefined || sequence === undefined || at + 5 > bytes.length) return undefined;
  const fields = bytes.subarray(offset, at);
  const fieldsCrc = crc32(fields);
  if (bytes[at] !== (fieldsCrc & 0xff)) return undefined;
  const start = at + 5;
  const end = start + length;
  if (end > bytes.length) return undefined;
  const payload = bytes.subarray(start, end);
  const view = new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4);
  if (view.getUint32(0, true) !== crc32(payload, fieldsCrc)) return undefined;
  return { type: type as FrameType, sequence, payload, end };
}

export function journalName(generation: number): string {
  return `journal.${generation}`;
}

/** The generation of a journal file name, or undefined for other names. */
export function journalGeneration(name: string): number | undefined {
  const match = /^journal\.([1-9][0-9]{0,9})$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
