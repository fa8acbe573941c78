/**
 * MD5 (RFC 1321), pure and platform-free: the module reports binary buffer and transfer digests
 * as 32 lowercase hex characters, and hosts compare them case-sensitively.
 */
const S = [
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
  21, 6, 10, 15, 21,
];
const K = new Int32Array(64);
for (let i = 0; i < 64; i++) K[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 0x1_0000_0000) | 0;

const HEX = "0123456789abcdef";

/** An incremental MD5: `update` any number of times, then `hex()` once. */
export class Md5 {
  readonly #state = new Int32Array([0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476]);
  readonly #block = new Uint8Array(64);
  readonly #words = new Int32Array(16);
  #blockLength = 0;
  #total = 0;
  #done = false;

  update(data: Uint8Array): this {
    if (this.#done) throw new Error("Md5: update after digest");
    this.#total += data.length;
    let i = 0;
    if (this.#blockLength > 0) {
      const take = Math.min(64 - this.#blockLength, data.length);
      this.#block.set(data.subarray(0, take), this.#blockLength);
      this.#blockLength += take;
      i = take;
      if (this.#blockLength < 64) return this;
      this.#compress(this.#block, 0);
      this.#blockLength = 0;
    }
    for (; i + 64 <= data.length; i += 64) this.#compress(data, i);
    if (i < data.length) {
      this.#block.set(data.subarray(i), 0);
      this.#blockLength = data.length - i;
    }
    return this;
  }

  /** The 16-byte digest. */
  digest(): Uint8Array {
    if (this.#done) throw new Error("Md5: digest taken twice");
    const bits = this.#total * 8;
    const padLength = this.#blockLength < 56 ? 56 - this.#blockLength : 120 - this.#blockLength;
    const pad = new Uint8Array(padLength + 8);
    pad[0] = 0x80;
    const low = bits >>> 0;
    const high = Math.floor(bits / 0x1_0000_0000) >>> 0;
    for (let b = 0; b < 4; b++) {
      pad[padLength + b] = (low >>> (8 * b)) & 0xff;
      pad[padLength + 4 + b] = (high >>> (8 * b)) & 0xff;
    }
    this.#total -= pad.length; // padding is not message length
    this.update(pad);
    this.#done = true;
    const out = new Uint8Array(16);
    for (let w = 0; w < 4; w++) {
      const v = this.#state[w]!;
      for (let b = 0; b < 4; b++) out[w * 4 + b] = (v >>> (8 * b)) & 0xff;
    }
    return out;
  }

  /** The digest as 32 lowercase hex characters. */
  hex(): string {
    let s = "";
    for (const byte of this.digest()) s += HEX[byte >>> 4]! + HEX[byte & 15]!;
    return s;
  }

  #compress(data: Uint8Array, at: number): void {
    const m = this.#words;
    for (let j = 0; j < 16; j++) {
      const p = at + j * 4;
      m[j] = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24);
    }
    const st = this.#state;
    let a = st[0]!;
    let b = st[1]!;
    let c = st[2]!;
    let d = st[3]!;
    for (let i = 0; i < 64; i++) {
      let f: number;
      let g: number;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const sum = (a + f + K[i]! + m[g]!) | 0;
      const s = S[i]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
    }
    st[0] = (st[0]! + a) | 0;
    st[1] = (st[1]! + b) | 0;
    st[2] = (st[2]! + c) | 0;
    st[3] = (st[3]! + d) | 0;
  }
}

/** MD5 of `data` as 32 lowercase hex characters. */
export function md5Hex(data: Uint8Array): string {
  return new Md5().update(data).hex();
}
