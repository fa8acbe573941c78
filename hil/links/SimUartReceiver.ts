import type { Clock, TimerHandle } from "../../core/Clock.js";
import { ByteStage } from "../stages/ByteStage.js";

export interface SimUartReceiverOptions {
  /** Bytes the module's receive buffer holds (default 1500, the real module's). */
  readonly capacity?: number;
  /**
   * How fast the module's serial task takes JSON text out of the buffer, in bytes per second
   * (default 4000). A host that paces 250-byte segments 250 ms apart (1000 B/s at most) never
   * fills the buffer, nor does a 9600-baud UART (960 B/s); a host that sends more than the
   * buffer holds in one burst over a fast link overflows it.
   */
  readonly drainBytesPerSecond?: number;
  /** How often the serial task runs, in ms (default 10). */
  readonly drainIntervalMs?: number;
}

/**
 * Bytes the receive buffer lost because it was full. An overflow episode lasts from the first
 * byte lost until the buffer is empty again (the module caught up); a host blasting a long
 * request loses bytes in many places of one episode, each reported with the episode's number.
 */
export interface UartOverflow {
  /** Position in the received stream of the first byte lost. */
  readonly position: number;
  /** The bytes lost (consecutive in the stream). */
  readonly bytes: Uint8Array;
  /** 1 for the first episode, 2 for the next, ... */
  readonly episode: number;
}

export const DEFAULT_RX_CAPACITY = 1500;
export const DEFAULT_DRAIN_BYTES_PER_SECOND = 4000;
export const DEFAULT_DRAIN_INTERVAL_MS = 10;

/**
 * The module's serial receive buffer, on the module's clock. Bytes from the wire fill a
 * fixed-size buffer; the module's serial task empties it at its own pace. Bytes that arrive
 * while the buffer is full are lost, as in the real module's interrupt buffer, so a host that
 * ignores segment pacing sees its request arrive damaged and answered with an `{io}` error.
 *
 * The line after an accepted `card.binary.put` is binary data: it goes straight to the binary
 * buffer at wire speed (hosts send it without pauses), so it is never held here.
 */
export class SimUartReceiver extends ByteStage {
  readonly #clock: Clock;
  readonly #ring: Uint8Array;
  readonly #perTick: number;
  readonly #intervalMs: number;
  readonly #listeners: ((overflow: UartOverflow) => void)[] = [];
  #start = 0;
  #count = 0;
  #allowance = 0;
  #timer: TimerHandle | undefined;
  #binary = false;
  #inEpisode = false;
  #overflows = 0;
  #dropped = 0;
  #peak = 0;

  constructor(clock: Clock, options: SimUartReceiverOptions = {}) {
    super();
    const capacity = options.capacity ?? DEFAULT_RX_CAPACITY;
    const rate = options.drainBytesPerSecond ?? DEFAULT_DRAIN_BYTES_PER_SECOND;
    const interval = options.drainIntervalMs ?? DEFAULT_DRAIN_INTERVAL_MS;
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new Error(`capacity must be >= 1, got ${capacity}`);
    if (!(rate > 0)) throw new Error(`drainBytesPerSecond must be > 0, got ${rate}`);
    if (!(interval > 0)) throw new Error(`drainIntervalMs must be > 0, got ${interval}`);
    this.#clock = clock;
    this.#ring = new Uint8Array(capacity);
    this.#perTick = (rate * interval) / 1000;
    this.#intervalMs = interval;
  }

  get capacity(): number {
    return this.#ring.length;
  }

  /** Bytes waiting in the buffer. */
  override get held(): number {
    return this.#count;
  }

  /** Overflow episodes, bytes lost, and the fullest the buffer has been. */
  get stats(): { overflows: number; droppedBytes: number; peak: number } {
    return { overflows: this.#overflows, droppedBytes: this.#dropped, peak: this.#peak };
  }

  onOverflow(listener: (overflow: UartOverflow) => void): void {
    this.#listeners.push(listener);
  }

  /** The next line (through its newline) is binary data for the binary buffer. */
  expectBinaryLine(): void {
    this.#binary = true;
    this.#drain(this.#count);
    this.#inEpisode = false;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    let offset = 0;
    if (this.#binary) {
      const nl = bytes.indexOf(0x0a);
      const end = nl < 0 ? bytes.length : nl + 1;
      this.emit(bytes.subarray(0, end));
      if (nl < 0) return;
      this.#binary = false;
      offset = end;
    }
    const free = this.#ring.length - this.#count;
    const fits = Math.min(free, bytes.length - offset);
    for (let i = 0; i < fits; i++) {
      this.#ring[(this.#start + this.#count + i) % this.#ring.length] = bytes[offset + i]!;
    }
    this.#count += fits;
    this.#peak = Math.max(this.#peak, this.#count);
    if (offset + fits < bytes.length) {
      const lost = bytes.slice(offset + fits);
      if (!this.#inEpisode) this.#overflows++;
      this.#inEpisode = true;
      this.#dropped += lost.length;
      const overflow = { position: position + offset + fits, bytes: lost, episode: this.#overflows };
      for (const l of this.#listeners) l(overflow);
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#count === 0) return;
    this.#timer = this.#clock.setTimer(() => this.#tick(), this.#intervalMs);
  }

  #tick(): void {
    this.#timer = undefined;
    this.#allowance += this.#perTick;
    const n = Math.min(this.#count, Math.floor(this.#allowance));
    this.#allowance -= n;
    this.#drain(n);
    // Idle time is not banked: a burst after a pause meets the same drain rate.
    if (this.#count === 0) {
      this.#allowance = 0;
      this.#inEpisode = false;
    }
    this.#schedule();
  }

  #drain(n: number): void {
    if (n <= 0) return;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.#ring[(this.#start + i) % this.#ring.length]!;
    this.#start = (this.#start + n) % this.#ring.length;
    this.#count -= n;
    this.emit(out);
  }

  override dispose(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#count = 0;
  }
}
