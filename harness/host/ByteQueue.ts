/** Bytes received and not yet read, oldest first. */
export class ByteQueue {
  #buffer = new Uint8Array(256);
  #start = 0;
  #end = 0;

  get length(): number {
    return this.#end - this.#start;
  }

  push(bytes: Uint8Array): void {
    if (this.#end + bytes.length > this.#buffer.length) {
      const needed = this.length + bytes.length;
      const next = needed * 2 > this.#buffer.length ? new Uint8Array(needed * 2) : this.#buffer;
      next.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = next;
      this.#end -= this.#start;
      this.#start = 0;
    }
    this.#buffer.set(bytes, this.#end);
    this.#end += bytes.length;
  }

  /** Takes up to `n` bytes. */
  take(n: number): Uint8Array {
    const k = Math.min(n, this.length);
    const out = this.#buffer.slice(this.#start, this.#start + k);
    this.#start += k;
    return out;
  }

  /** Index of the first `byte` from the oldest, or -1. */
  indexOf(byte: number): number {
    const i = this.#buffer.subarray(this.#start, this.#end).indexOf(byte);
    return i;
  }

  clear(): void {
    this.#start = this.#end = 0;
  }
}
