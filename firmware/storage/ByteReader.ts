/** Reads what a `ByteWriter` wrote; throws on a record shorter than its layout says. */
export class ByteReader {
  readonly #buf: Uint8Array;
  readonly #view: DataView;
  #pos: number;

  constructor(buf: Uint8Array, start = 0) {
    this.#buf = buf;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.#pos = start;
  }

  get position(): number {
    return this.#pos;
  }

  get remaining(): number {
    return this.#buf.length - this.#pos;
  }

  #take(n: number): number {
    const at = this.#pos;
    if (n < 0 || at + n > this.#buf.length) {
      throw new Error(`note record truncated: needs ${n} bytes at offset ${at} of ${this.#buf.length}`);
    }
    this.#pos += n;
    return at;
  }

  u8(): number {
    return this.#buf[this.#take(1)]!;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    throw new Error("note record corrupt: varint too long");
  }

  bytes(n: number): Uint8Array {
    const at = this.#take(n);
    return this.#buf.slice(at, at + n);
  }

  bit(offset: number, bit: number): boolean {
    return (this.#buf[offset + (bit >> 3)]! & (1 << (bit & 7))) !== 0;
  }

  /** A little-endian integer of `size` bytes (1..8), signed or not. */
  int(size: number, signed: boolean): number {
    const at = this.#take(size);
    if (size <= 6) {
      let v = 0;
      for (let i = size - 1; i >= 0; i--) v = v * 256 + this.#buf[at + i]!;
      if (signed && v >= 2 ** (8 * size - 1)) v -= 2 ** (8 * size);
      return v;
    }
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.#buf[at + i]!);
    return Number(signed ? BigInt.asIntN(8 * size, v) : v);
  }

  float32(): number {
    return this.#view.getFloat32(this.#take(4), true);
  }

  float64(): number {
    return this.#view.getFloat64(this.#take(8), true);
  }
}
