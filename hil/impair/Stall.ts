import type { Clock, TimerHandle } from "../../core/Clock.js";
import { ByteStage } from "../stages/ByteStage.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/**
 * Holds bytes back for a while and then lets them all through, in order (a stalled USB
 * endpoint, flow control, a busy bridge). Stalls start on demand (`stall(ms)`), when a given byte
 * position is reached (`atByte`), or at a given time after the stage was made (`atMs`).
 */
export class Stall extends ByteStage {
  readonly #clock: Clock;
  readonly #report: ImpairmentListener;
  readonly #atBytes: { position: number; ms: number }[];
  readonly #timers = new Set<TimerHandle>();
  #queue: Uint8Array[] = [];
  #queued = 0;
  #until = -Infinity;
  #release: TimerHandle | undefined;

  constructor(
    clock: Clock,
    options: { atByte?: number | readonly number[]; atMs?: number | readonly number[]; ms?: number } = {},
    report: ImpairmentListener = () => undefined,
  ) {
    super();
    this.#clock = clock;
    this.#report = report;
    const ms = options.ms ?? 0;
    const list = (v: number | readonly number[] | undefined) =>
      v === undefined ? [] : typeof v === "number" ? [v] : [...v];
    if ((options.atByte !== undefined || options.atMs !== undefined) && !(ms > 0)) {
      throw new Error(`a scheduled stall needs ms > 0, got ${options.ms}`);
    }
    this.#atBytes = list(options.atByte)
      .sort((a, b) => a - b)
      .map((position) => ({ position, ms }));
    for (const at of list(options.atMs)) {
      const handle = clock.setTimer(() => {
        this.#timers.delete(handle);
        this.stall(ms);
      }, at);
      this.#timers.add(handle);
    }
  }

  /** True while bytes are being held. */
  get stalled(): boolean {
    return this.#clock.now() < this.#until;
  }

  override get held(): number {
    return this.#queued;
  }

  /** Holds everything from now on for `ms` (extends a stall in progress). */
  stall(ms: number): void {
    const until = this.#clock.now() + ms;
    if (until <= this.#until) return;
    this.#until = until;
    this.#report({ impairment: "stall", position: this.position, bytes: new Uint8Array(0), info: { ms } });
    if (this.#release !== undefined) this.#clock.clearTimer(this.#release);
    this.#release = this.#clock.setTimer(() => this.#flush(), ms);
  }

  protected receive(bytes: Uint8Array, position: number): void {
    let from = 0;
    while (this.#atBytes.length > 0 && this.#atBytes[0]!.position < position + bytes.length) {
      const { position: at, ms } = this.#atBytes.shift()!;
      const cut = Math.max(0, at - position);
      this.#pass(bytes.subarray(from, cut));
      from = Math.max(from, cut);
      this.stall(ms);
    }
    this.#pass(bytes.subarray(from));
  }

  #pass(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.stalled || this.#queued > 0) {
      this.#queue.push(bytes.slice());
      this.#queued += bytes.length;
    } else {
      this.emit(bytes);
    }
  }

  #flush(): void {
    this.#release = undefined;
    const queue = this.#queue;
    this.#queue = [];
    this.#queued = 0;
    for (const bytes of queue) this.emit(bytes);
  }

  override dispose(): void {
    if (this.#release !== undefined) this.#clock.clearTimer(this.#release);
    for (const t of this.#timers) this.#clock.clearTimer(t);
    this.#timers.clear();
    this.#queue = [];
    this.#queued = 0;
  }
}
