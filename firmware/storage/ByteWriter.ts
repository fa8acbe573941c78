const encoder = new TextEncoder();
// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;

/** Appends little-endian binary fields to a growing buffer (the module's flash record layout). */
export class ByteWriter {
  #buf: Uint8Array;
  #view: DataView;
  #len = 0;

  constructor(initialCapacity = 64) {
    this.#buf = new Uint8Array(initialCapacity);
    this.#view = new DataView(this.#buf.buffer);
  }

  get length(): number {
    return this.#len;
  }

  /** Starts over, keeping the buffer (one writer can serve many records). */
  reset(): void {
    this.#len = 0;
  }

  #ensure(extra: number): void {
    const need = this.#len + extra;
    if (need <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  u8(value: number): void {
    this.#ensure(1);
    this.#buf[this.#len++] = value & 0xff;
  }

  /** Unsigned LEB128 of a non-negative safe integer. */
  varint(value: number): void {
    this.#ensure(8);
    let v = value;
    while (v >= 0x80) {
      this.#buf[this.#len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buf[this.#len++] = v;
  }

  bytes(data: Uint8Array): void {
    this.#ensure(data.length);
    this.#buf.set(data, this.#len);
    this.#len += data.length;
  }

  /**
   * A UTF-8 string: with `fixed`, in exactly that many bytes, zero-padded (the caller has cut it
   * to fit); otherwise as a varint byte length and the bytes.
   */
  string(value: string, fixed?: number): void {
    if (ASCII.test(value)) {
      const n = fixed === undefined ? value.length : Math.min(value.length, fixed);
      if (fixed === undefined) this.varint(n);
      this.#ensure(n);
      for (let i = 0; i < n; i++) this.#buf[this.#len++] = value.charCodeAt(i);
      if (fixed !== undefined) this.reserve(fixed - n);
      return;
    }
    const bytes = encoder.encode(value);
    if (fixed === undefined) {
      this.varint(bytes.length);
      this.bytes(bytes);
    } else {
      const n = Math.min(bytes.length, fixed);
      this.bytes(bytes.subarray(0, n));
      this.reserve(fixed - n);
    }
  }

  /** Reserves `n` zero bytes and returns their offset (filled in later with `setBit`). */
  reserve(n: number): number {
    this.#ensure(n);
    const at = this.#len;
    this.#buf.fill(0, at, at + n);
    this.#len += n;
    return at;
  }

  setBit(offset: number, bit: number): void {
    this.#buf[offset + (bit >> 3)]! |= 1 << (bit & 7);
  }

  /** A two's-complement integer of `size` bytes (1..8); the caller has range-checked it. */
  int(value: number, size: number): void {
    this.#ensure(size);
    if (size <= 6) {
      let v = value < 0 ? value + 2 ** (8 * size) : value;
      for (let i = 0; i < size; i++) {
        this.#buf[this.#len++] = v % 256;
        v = Math.floor(v / 256);
      }
    } else {
      let v = BigInt.asUintN(8 * size, BigInt(value));
      for (let i = 0; i < size; i++) {
        this.#buf[this.#len++] = Number(v & 0xffn);
        v >>= 8n;
      }
    }
  }

  float32(value: number): void {
    this.#ensure(4);
    this.#view.setFloat32(this.#len, value, true);
    this.#len += 4;
  }

  float64(value: number): void {
    this.#ensure(8);
    this.#view.setFloat64(this.#len, value, true);
    this.#len += 8;
  }

  /** The bytes written so far (a copy that owns its memory). */
  finish(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
}
