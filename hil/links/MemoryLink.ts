import type { ByteLink } from "./ByteLink.js";

/**
 * One end of an in-memory cable between a host and a module, for tests and in-process rigs.
 * Bytes written at one end reach the other end's listeners in order, on a later microtask (never
 * re-entrantly inside `write`), in the chunks they were written. Bytes that arrive before the
 * other end has a data listener are kept for it. Closing either end closes both, like pulling
 * the cable: both ends report close once, and later writes are dropped.
 */
export class MemoryLink implements ByteLink {
  #peer!: MemoryLink;
  readonly #dataListeners: ((bytes: Uint8Array) => void)[] = [];
  readonly #closeListeners: (() => void)[] = [];
  #early: Uint8Array[] = [];
  #closed = false;
  #bytesWritten = 0;

  private constructor() {}

  /** A connected pair: `[hostEnd, moduleEnd]` (the two ends are interchangeable). */
  static pair(): [MemoryLink, MemoryLink] {
    const a = new MemoryLink();
    const b = new MemoryLink();
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes written at this end so far. */
  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  write(bytes: Uint8Array): void {
    if (this.#closed || bytes.length === 0) return;
    this.#bytesWritten += bytes.length;
    // Copy: the writer may reuse its buffer after write returns, as with a real port.
    const copy = bytes.slice();
    const peer = this.#peer;
    queueMicrotask(() => peer.#deliver(copy));
  }

  #deliver(bytes: Uint8Array): void {
    if (this.#closed) return;
    // Kept bytes go first: while any are waiting for their flush, newer ones queue behind them.
    if (this.#dataListeners.length === 0 || this.#early.length > 0) {
      this.#early.push(bytes);
      return;
    }
    for (const listener of this.#dataListeners) listener(bytes);
  }

  onData(listener: (bytes: Uint8Array) => void): void {
    this.#dataListeners.push(listener);
    if (this.#early.length > 0 && this.#dataListeners.length === 1) {
      queueMicrotask(() => {
        while (this.#early.length > 0 && !this.#closed) {
          const bytes = this.#early.shift()!;
          for (const l of this.#dataListeners) l(bytes);
        }
      });
    }
  }

  onClose(listener: () => void): void {
    if (this.#closed) queueMicrotask(listener);
    else this.#closeListeners.push(listener);
  }

  close(): Promise<void> {
    this.#shut();
    this.#peer.#shut();
    return Promise.resolve();
  }

  #shut(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#early = [];
    const listeners = this.#closeListeners.splice(0);
    queueMicrotask(() => {
      for (const listener of listeners) listener();
    });
  }
}
