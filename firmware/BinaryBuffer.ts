import { cobsEncode, cobsEncodedLength } from "./host/Cobs.js";
import { md5Hex } from "../core/md5.js";

/** Capacity of the reference target (the cellular module's `card.binary` `max`). */
export const DEFAULT_BINARY_MAX = 130554;

/**
 * The module's binary buffer: one block of bytes in RAM (lost on restart), filled by the host
 * with `card.binary.put` or by the module itself (`web.get`, `dfu.get` with `binary:true`), read
 * by the host with `card.binary.get` or sent onwards by the module (`note.add`, `web.post` with
 * `binary:true`). Digests and encoded sizes are cached until the content changes.
 */
export class BinaryBuffer {
  /** Most unencoded bytes the buffer holds. */
  readonly max: number;
  #data: Uint8Array;
  #length = 0;
  #md5: string | undefined;
  #cobsLength: number | undefined;
  #fault: string | undefined;

  constructor(max = DEFAULT_BINARY_MAX) {
    if (!Number.isInteger(max) || max < 0)
      throw new RangeError(`binary buffer max must be a whole number, got ${max}`);
    this.max = max;
    // Room is taken as bytes arrive: most modules of a fleet never use the buffer.
    this.#data = new Uint8Array(0);
  }

  /** Unencoded bytes held. */
  get length(): number {
    return this.#length;
  }

  /** Why the last transfer into the buffer failed, until the buffer is cleared or written again. */
  get fault(): string | undefined {
    return this.#fault;
  }

  /** The content (a view: valid until the next change; copy it to keep it). */
  bytes(): Uint8Array {
    return this.#data.subarray(0, this.#length);
  }

  /** A copy of `length` bytes at `offset`; RangeError when outside the content. */
  read(offset: number, length: number): Uint8Array {
    if (!this.contains(offset, length))
      throw new RangeError(
        `bytes ${offset}..${offset + length} are outside the buffer (${this.#length} bytes)`,
      );
    return this.#data.slice(offset, offset + length);
  }

  contains(offset: number, length: number): boolean {
    return (
      Number.isInteger(offset) &&
      Number.isInteger(length) &&
      offset >= 0 &&
      length >= 0 &&
      offset + length <= this.#length
    );
  }

  /** MD5 of the whole content, lowercase hex. */
  md5(): string {
    return (this.#md5 ??= md5Hex(this.bytes()));
  }

  /** Encoded (COBS) size of the whole content, without the end-of-packet byte. */
  cobsLength(): number {
    return (this.#cobsLength ??= cobsEncodedLength(this.bytes()));
  }

  /** The content of `offset..offset+length` as COBS bytes followed by the end-of-packet newline. */
  encode(offset = 0, length = this.#length - offset): Uint8Array {
    const encoded = cobsEncode(this.read(offset, length));
    const out = new Uint8Array(encoded.length + 1);
    out.set(encoded);
    out[encoded.length] = 0x0a;
    return out;
  }

  /**
   * Writes `data` at `offset`, which must not be past the end: the content becomes everything
   * before `offset` plus `data` (offset 0 replaces the content; offset = length appends).
   */
  write(offset: number, data: Uint8Array): void {
    if (!Number.isInteger(offset) || offset < 0 || offset > this.#length)
      throw new RangeError(`offset ${offset} is not within the buffer (${this.#length} bytes)`);
    const end = offset + data.length;
    if (end > this.max) throw new RangeError(`${end} bytes exceed the buffer's capacity of ${this.max}`);
    this.#reserve(end);
    this.#data.set(data, offset);
    this.#length = end;
    this.#changed();
  }

  /** Replaces the content (module-side fills: web.get, dfu.get). */
  fill(data: Uint8Array): void {
    this.write(0, data);
  }

  /** Empties the buffer and forgets a failed transfer. */
  clear(): void {
    this.#length = 0;
    if (this.#data.length > 4096) this.#data = new Uint8Array(Math.min(this.max, 4096));
    this.#changed();
  }

  /** Records that a transfer into the buffer failed; the content written before it is kept. */
  markFault(reason: string): void {
    this.#fault = reason;
  }

  #reserve(size: number): void {
    if (size <= this.#data.length) return;
    const grown = new Uint8Array(Math.min(this.max, Math.max(size, 256, this.#data.length * 2)));
    grown.set(this.#data.subarray(0, this.#length));
    this.#data = grown;
  }

  #changed(): void {
    this.#md5 = undefined;
    this.#cobsLength = undefined;
    this.#fault = undefined;
  }
}
