import type { Clock, TimerHandle } from "../../core/Clock.js";
import { ByteStage } from "../stages/ByteStage.js";

/**
 * Moves bytes at a UART's line rate on the given clock: each byte takes `bitsPerByte` bit times
 * (10 for 8-N-1) and bytes queue behind each other, so a burst written at once arrives spread
 * out, as on a real wire. Bytes are passed on when their last bit has arrived, grouped per
 * millisecond tick.
 */
export class BaudPacer extends ByteStage {
  readonly #clock: Clock;
  readonly #byteMs: number;
  readonly #baud: number;
  readonly #byteTicks: number;
  readonly #base: number;
  /**
   * Arrival time of each queued byte, oldest first, in exact integer ticks of 1/baud ms since
   * the pacer was made (so that 96 bytes at 9600 baud take exactly 100 ms, not 100.0000001).
   */
  #times: number[] = [];
  #bytes: number[] = [];
  #head = 0;
  #lineFreeAt = -Infinity;
  #timer: TimerHandle | undefined;

  constructor(clock: Clock, options: { baud: number; bitsPerByte?: number }) {
    super();
    const bits = options.bitsPerByte ?? 10;
    if (!(options.baud > 0)) throw new Error(`baud must be > 0, got ${options.baud}`);
    if (!(bits > 0)) throw new Error(`bitsPerByte must be > 0, got ${bits}`);
    if (!Number.isInteger(options.baud) || !Number.isInteger(bits))
      throw new Error("baud and bitsPerByte must be integers");
    this.#clock = clock;
    this.#baud = options.baud;
    this.#byteTicks = bits * 1000;
    this.#byteMs = (bits * 1000) / options.baud;
    this.#base = clock.now();
  }

  #ticks(ms: number): number {
    return (ms - this.#base) * this.#baud;
  }

  /** Milliseconds one byte takes on the wire. */
  get byteMs(): number {
    return this.#byteMs;
  }

  override get held(): number {
    return this.#times.length - this.#head;
  }

  protected receive(bytes: Uint8Array): void {
    let t = Math.max(this.#ticks(this.#clock.now()), this.#lineFreeAt);
    for (const b of bytes) {
      t += this.#byteTicks;
      this.#times.push(t);
      this.#bytes.push(b);
    }
    this.#lineFreeAt = t;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.held === 0) return;
    const due = this.#base + Math.ceil(this.#times[this.#head]! / this.#baud);
    this.#timer = this.#clock.setTimer(() => this.#release(), Math.max(0, due - this.#clock.now()));
  }

  #release(): void {
    this.#timer = undefined;
    const now = this.#ticks(this.#clock.now());
    const start = this.#head;
    while (this.#head < this.#times.length && this.#times[this.#head]! <= now) this.#head++;
    const out = Uint8Array.from(this.#bytes.slice(start, this.#head));
    if (this.#head > 4096) {
      this.#times = this.#times.slice(this.#head);
      this.#bytes = this.#bytes.slice(this.#head);
      this.#head = 0;
    }
    this.#schedule();
    this.emit(out);
  }

  override dispose(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#times = [];
    this.#bytes = [];
    this.#head = 0;
  }
}
