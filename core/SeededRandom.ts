import type { Random } from "./Random.js";

/**
 * Deterministic generator (sfc32) seeded from a number or string. Same seed, same sequence, on
 * every platform, so a failing scenario can be replayed from its seed.
 */
export class SeededRandom implements Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number | string) {
    // Expand the seed with a string hash so that nearby seeds give unrelated streams.
    let h = 1779033703 ^ String(seed).length;
    const text = String(seed);
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    const next = () => {
      h = Math.imul(h ^ (h >>> 16), 2246822507);
      h = Math.imul(h ^ (h >>> 13), 3266489909);
      return (h ^= h >>> 16) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }
}
