import type { KvOp } from "../KvStore.js";

/**
 * Encodes a batch of store operations as the payload of a journal frame, and back. Values are
 * kept as raw bytes (no text encoding), so what the note codec hands the store, a templated
 * note's compact binary form included, costs exactly its own length plus a few bytes.
 *
 * Each operation: one op byte (1 put, 2 delete, 3 delete-prefix; bit 7 set when the key is
 * stored as UTF-16LE because it is not well-formed Unicode), the key's byte length as an
 * unsigned LEB128 varint, the key, and for a put the value's length (varint) and the value.
 */
export const OP_PUT = 1;
export const OP_DELETE = 2;
export const OP_DELETE_PREFIX = 3;
const UTF16_KEY = 0x80;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Thrown when a payload that passed its checksum still does not parse (a bug, or a collision). */
export class MalformedBatchError extends Error {
  override readonly name = "MalformedBatchError";
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A key's bytes and whether they are UTF-16LE (keys with lone surrogates survive that way). */
export function encodeKey(key: string): { bytes: Uint8Array; utf16: boolean } {
  const ascii = new Uint8Array(key.length);
  if (copyAscii(key, ascii, 0)) return { bytes: ascii, utf16: false };
  if (!LONE_SURROGATE.test(key)) return { bytes: encoder.encode(key), utf16: false };
  const bytes = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    bytes[2 * i] = unit & 0xff;
    bytes[2 * i + 1] = unit >>> 8;
  }
  return { bytes, utf16: true };
}

/**
 * Copies `key` into `out` from `at` when it is ASCII (its UTF-8 then), and says whether it was.
 * Keys are short and nearly always ASCII (notefile names, note IDs): copied by hand, several times
 * faster than a TextEncoder call. Stops at the first other character, `out` partly written.
 */
function copyAscii(key: string, out: Uint8Array, at: number): boolean {
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    if (unit >= 0x80) return false;
    out[at + i] = unit;
  }
  return true;
}

/** `encodeKey(key).bytes.length` without encoding. */
export function keyByteLength(key: string): number {
  let n = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c > 0xdfff) n += 3;
    else if (c <= 0xdbff && i + 1 < key.length && (key.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else return key.length * 2;
  }
  return n;
}

export function varintLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

/** Bytes one put record takes in a batch or base chunk. */
export function putRecordSize(keyBytes: number, valueBytes: number): number {
  return 1 + varintLength(keyBytes) + keyBytes + varintLength(valueBytes) + valueBytes;
}

/** Appends encoded operations to a byte sink; sized up front so a batch is one allocation. */
export class BatchWriter {
  #out: Uint8Array;
  #at = 0;

  constructor(capacity: number) {
    this.#out = new Uint8Array(capacity);
  }

  static encode(ops: readonly KvOp[]): Uint8Array {
    const keyOf = (op: KvOp) => (op.op === "deletePrefix" ? op.prefix : op.key);
    let size = 0;
    for (const op of ops) {
      const key = keyByteLength(keyOf(op));
      size += 1 + varintLength(key) + key;
      if (op.op === "put") size += varintLength(op.value.length) + op.value.length;
    }
    const writer = new BatchWriter(size);
    for (const op of ops) {
      const code = op.op === "put" ? OP_PUT : op.op === "delete" ? OP_DELETE : OP_DELETE_PREFIX;
      writer.#recordText(code, keyOf(op), op.op === "put" ? op.value : undefined);
    }
    return writer.bytes();
  }

  /**
   * Appends a put record and returns a view of the value as stored in this writer's buffer, or
   * undefined (nothing written) when the record does not fit. An ASCII key (nearly all) is
   * written straight into the buffer, with no bytes made for it first.
   */
  tryPutText(key: string, value: Uint8Array): Uint8Array | undefined {
    if (this.#at + putRecordSize(keyByteLength(key), value.length) > this.#out.length) return undefined;
    this.#recordText(OP_PUT, key, value);
    return this.#out.subarray(this.#at - value.length, this.#at);
  }

  get length(): number {
    return this.#at;
  }

  bytes(): Uint8Array {
    return this.#out.subarray(0, this.#at);
  }

  #record(code: number, key: { bytes: Uint8Array; utf16: boolean }, value: Uint8Array | undefined): void {
    this.#out[this.#at++] = code | (key.utf16 ? UTF16_KEY : 0);
    this.#varint(key.bytes.length);
    this.#out.set(key.bytes, this.#at);
    this.#at += key.bytes.length;
    this.#value(value);
  }

  /** `#record` of a key as text: an ASCII key is written straight into the buffer. */
  #recordText(code: number, key: string, value: Uint8Array | undefined): void {
    const start = this.#at;
    this.#out[this.#at++] = code;
    this.#varint(key.length);
    if (!copyAscii(key, this.#out, this.#at)) {
      this.#at = start;
      return this.#record(code, encodeKey(key), value);
    }
    this.#at += key.length;
    this.#value(value);
  }

  /** A put record's value: its length and its bytes (nothing for other records). */
  #value(value: Uint8Array | undefined): void {
    if (!value) return;
    this.#varint(value.length);
    this.#out.set(value, this.#at);
    this.#at += value.length;
  }

  #varint(value: number): void {
    while (value >= 0x80) {
      this.#out[this.#at++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    this.#out[this.#at++] = value;
  }
}

/** Decodes a key: ASCII keys (nearly all) without the cost of a TextDecoder call. */
function decodeKey(bytes: Uint8Array, utf16: boolean): string {
  if (utf16) {
    if (bytes.length % 2 !== 0) throw new MalformedBatchError("UTF-16 key of odd length");
    // By hand: TextDecoder would replace the lone surrogates this encoding exists to keep.
    let key = "";
    for (let i = 0; i < bytes.length; i += 2) key += String.fromCharCode(bytes[i]! | (bytes[i + 1]! << 8));
    return key;
  }
  if (bytes.length <= 128) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new MalformedBatchError("key is not valid UTF-8");
  }
}

/**
 * Decodes a payload into a flat list, four entries per operation: op code, key, the key's byte
 * length, and the value (a view into `payload`, no copy) or undefined. The whole payload is
 * decoded before anything is applied, so a batch that does not parse changes nothing. Flat and
 * reused: replaying a hundred thousand records allocates no object per record.
 */
export function decodeBatchInto(payload: Uint8Array, out: unknown[]): void {
  out.length = 0;
  const end = payload.length;
  let at = 0;
  while (at < end) {
    const head = payload[at++]!;
    const code = head & ~UTF16_KEY;
    if (code !== OP_PUT && code !== OP_DELETE && code !== OP_DELETE_PREFIX) {
      throw new MalformedBatchError(`unknown operation ${code}`);
    }
    // Varints read inline: this loop runs once per record at every boot.
    let keyLength = 0;
    for (let shift = 1, i = 0; ; i++, shift *= 128) {
      if (at >= end || i === 5) throw new MalformedBatchError("bad key length");
      const byte = payload[at++]!;
      keyLength += (byte & 0x7f) * shift;
      if (byte < 0x80) break;
    }
    if (at + keyLength > end) throw new MalformedBatchError("key runs past the end of the payload");
    const key = decodeKey(payload.subarray(at, at + keyLength), (head & UTF16_KEY) !== 0);
    at += keyLength;
    if (code !== OP_PUT) {
      out.push(code, key, keyLength, undefined);
      continue;
    }
    let valueLength = 0;
    for (let shift = 1, i = 0; ; i++, shift *= 128) {
      if (at >= end || i === 5) throw new MalformedBatchError("bad value length");
      const byte = payload[at++]!;
      valueLength += (byte & 0x7f) * shift;
      if (byte < 0x80) break;
    }
    if (at + valueLength > end) throw new MalformedBatchError("value runs past the end of the payload");
    out.push(code, key, keyLength, payload.subarray(at, at + valueLength));
    at += valueLength;
  }
}

/** Decodes a payload into operations (values are views into `payload`). */
export function decodeBatch(payload: Uint8Array): KvOp[] {
  const flat: unknown[] = [];
  decodeBatchInto(payload, flat);
  const ops: KvOp[] = [];
  for (let i = 0; i < flat.length; i += 4) {
    const code = flat[i] as number;
    const key = flat[i + 1] as string;
    if (code === OP_PUT) ops.push({ op: "put", key, value: flat[i + 3] as Uint8Array });
    else if (code === OP_DELETE) ops.push({ op: "delete", key });
    else ops.push({ op: "deletePrefix", prefix: key });
  }
  return ops;
}
