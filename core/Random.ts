/** Source of randomness for a module; seeded in tests so that runs repeat exactly. */
export interface Random {
  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number;
}

/** An integer in [0, n). */
export function randomInt(random: Random, n: number): number {
  return Math.floor((random.nextUint32() / 0x1_0000_0000) * n);
}

export function randomBytes(random: Random, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 4) {
    let word = random.nextUint32();
    for (let j = i; j < Math.min(i + 4, length); j++) {
      out[j] = word & 0xff;
      word >>>= 8;
    }
  }
  return out;
}

const HEX = "0123456789abcdef";

export function randomHex(random: Random, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += HEX[randomInt(random, 16)];
  return s;
}
