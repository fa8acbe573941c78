/**
 * A byte array that grows by doubling, so that appending n bytes one record at a time costs
 * O(n) rather than O(n^2) copies. Used by the in-memory flash backends and the journal writer.
 */
export class GrowableBytes {
  #buffer: Uint8Array;
  #length = 0;

  constructor(initial: Uint8Array | number = 256) {
    if (typeof initial === "number") {
      this.#buffer = new Uint8Array(Math.max(16, initial));
    } else {
      this.#buffer = new Uint8Array(Math.max(16, initial.length));
      this.#buffer.set(initial);
      this.#length = initial.length;
    }
  }

  get length(): number {
    return this.#length;
  }

  append(bytes: Uint8Array): void {
    this.#reserve(this.#length + bytes.length);
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** Shortens to `length` bytes, or grows with zeros (as a file system does). */
  resize(length: number): void {
    if (length > this.#length) {
      this.#reserve(length);
      this.#buffer.fill(0, this.#length, length);
    }
    this.#length = length;
  }

  /** A copy of the content. */
  toBytes(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }

  /** A view of the content; valid until the next append. */
  view(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }

  #reserve(length: number): void {
    if (length <= this.#buffer.length) return;
    let size = this.#buffer.length;
    while (size < length) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }
}
