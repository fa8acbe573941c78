import type { Clock, TimerHandle } from "../core/Clock.js";

/** A scheduled callback: its place in the heap, -1 once it ran or was cleared. */
interface Timer {
  readonly callAt: number;
  /** Scheduling order: of timers due at one time, the first scheduled runs first. */
  readonly order: number;
  readonly callback: () => void;
  index: number;
}

/** Delays above a timer's 32-bit range run after 1 ms, as in browsers and Node (and fake-timers). */
const MAX_DELAY = 2 ** 31 - 1;

/** Lets every settled promise run its continuations (and ready I/O run) before the next timer. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The handles of a process that waits on nothing: its standard output and error streams. */
const STREAMS = new Set<unknown>([process.stdout, process.stderr]);

/**
 * Whether the process waits on something real (Node's active resources): an I/O request, an
 * open handle other than standard output and error (a socket, a server, a worker's port, a child
 * process, standard input read), an immediate, or a referenced Node timer. Unreferenced timers
 * do not count: they keep nothing waiting.
 */
export function waitsOnRealWork(): boolean {
  return realWorkIn(process.getActiveResourcesInfo(), activeHandles);
}

const activeHandles = (): readonly unknown[] =>
  (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();

/**
 * `waitsOnRealWork` from Node's active `resources` (their type names) and, asked only when every
 * resource is a terminal or a pipe, the active `handles`: real work unless those are standard
 * output and error alone.
 */
export function realWorkIn(resources: readonly string[], handles: () => readonly unknown[]): boolean {
  if (resources.length === 0) return false;
  for (const resource of resources) if (resource !== "TTYWrap" && resource !== "PipeWrap") return true;
  return handles().some((handle) => !STREAMS.has(handle));
}

export interface FakeClockOptions {
  /**
   * Whether something real is pending (default `waitsOnRealWork`): after a timer the clock then
   * turns the event loop, so that I/O, immediates and Node timers run between timers.
   */
  readonly realWork?: () => boolean;
}

function earlier(a: Timer, b: Timer): boolean {
  return a.callAt < b.callAt || (a.callAt === b.callAt && a.order < b.order);
}

/**
 * Virtual time for tests and fleet runs: nothing happens until the test advances it. Timers wait
 * in a binary heap (earliest first; of timers due at one time, the first scheduled first) and run
 * one at a time, promises settling between them; a timer scheduled meanwhile runs in the same
 * `advance` when it falls in its range. It keeps the semantics of the @sinonjs/fake-timers clock it
 * replaces (a 0 ms timer set while time is being advanced runs 1 ms later; a delay beyond 2^31-1
 * ms runs after 1 ms; a throwing timer does not stop the others, and `advance` rejects with the
 * first error once its range is run) without its costs: a real 1 ms timer after every timer fired,
 * and a scan of every pending timer whenever the next one lay beyond the range.
 *
 * Between two timers every microtask the first one's callback chained has run: the clock goes on
 * from a `process.nextTick` queued after the callback, which runs once the microtask queue is
 * empty. When the process waits on something real then (`realWork`: I/O, an immediate, a Node
 * timer), the clock also lets a turn of the event loop pass (`setImmediate`), so that ready I/O
 * runs between timers as it always did; when it waits on nothing, no turn: a turn costs a
 * simulated session more than its own microseconds (the scavenges V8 runs as tasks in it). A chain
 * that goes through `process.nextTick` with no I/O behind it may see its later steps run after
 * the next timer. `advance` and `next` begin with a turn of the event loop either way.
 */
export class FakeClock implements Clock {
  #now: number;
  /** Sub-millisecond remainder of fractional advances, in ns (carried into whole ms). */
  #nanos = 0;
  #order = 0;
  /** Advances (or `next` steps) under way: a 0 ms timer set meanwhile is due 1 ms on. */
  #ticking = 0;
  readonly #heap: Timer[] = [];
  readonly #realWork: () => boolean;

  /** `start`: epoch milliseconds the clock starts at (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1), options: FakeClockOptions = {}) {
    this.#now = start;
    this.#realWork = options.realWork ?? waitsOnRealWork;
  }

  /** After a timer: once the microtasks its callback chained have run, and a turn when real work waits. */
  #settled(): Promise<void> {
    return new Promise((resolve) => process.nextTick(this.#afterMicrotasks, resolve));
  }

  readonly #afterMicrotasks = (resolve: () => void): void => {
    if (this.#realWork()) setImmediate(resolve);
    else resolve();
  };

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): TimerHandle {
    if (typeof callback !== "function") throw new TypeError("FakeClock.setTimer needs a callback function");
    let delay = Number.isFinite(ms) ? ms : 0;
    if (delay > MAX_DELAY) delay = 1;
    delay = Math.trunc(Math.max(0, delay)) || (this.#ticking > 0 ? 1 : 0);
    const timer: Timer = { callAt: this.#now + delay, order: this.#order++, callback, index: -1 };
    this.#push(timer);
    return timer as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    const timer = handle as unknown as Timer | undefined;
    if (timer && typeof timer.index === "number" && this.#heap[timer.index] === timer) this.#remove(timer);
  }

  /** Advances time by `ms`, running due timers and settling promises between them. */
  async advance(ms: number): Promise<void> {
    if (ms < 0) throw new TypeError("Negative ticks are not supported");
    await settle();
    const whole = Math.floor(ms);
    let nanos = this.#nanos + Math.floor((((ms * 1e6) % 1e6) + 1e6) % 1e6);
    let to = this.#now + whole;
    if (nanos >= 1e6) {
      to += 1;
      nanos -= 1e6;
    }
    let firstError: { error: unknown } | undefined;
    this.#ticking++;
    try {
      for (let timer = this.#heap[0]; timer !== undefined && timer.callAt <= to; timer = this.#heap[0]) {
        const error = this.#run(timer);
        firstError ??= error;
        await this.#settled();
      }
    } finally {
      this.#ticking--;
    }
    if (to > this.#now) this.#now = to;
    this.#nanos = nanos;
    if (firstError) throw firstError.error;
  }

  /** Runs every timer that is due now. */
  async runDue(): Promise<void> {
    await this.advance(0);
  }

  /**
   * Jumps to the earliest pending timer and runs it, settling promises after it. Returns false
   * when no timer was pending. Used to run a scenario until a promise settles without overshooting
   * a deadline (the caller schedules the deadline as a timer).
   */
  async next(): Promise<boolean> {
    if (this.#heap.length === 0) return false;
    await settle();
    const timer = this.#heap[0];
    if (timer === undefined) return true;
    this.#ticking++;
    const error = this.#run(timer);
    this.#ticking--;
    await this.#settled();
    if (error) throw error.error;
    return true;
  }

  /** How many timers are pending. */
  pendingTimers(): number {
    return this.#heap.length;
  }

  /** Takes `timer` off the heap, moves the clock to it and calls it; returns what it threw. */
  #run(timer: Timer): { error: unknown } | undefined {
    this.#remove(timer);
    if (timer.callAt > this.#now) this.#now = timer.callAt;
    try {
      timer.callback();
      return undefined;
    } catch (error) {
      return { error };
    }
  }

  #push(timer: Timer): void {
    timer.index = this.#heap.length;
    this.#heap.push(timer);
    this.#up(timer.index);
  }

  #remove(timer: Timer): void {
    const heap = this.#heap;
    const i = timer.index;
    const last = heap.pop()!;
    timer.index = -1;
    if (last === timer) return;
    heap[i] = last;
    last.index = i;
    this.#down(i);
    this.#up(last.index);
  }

  #up(i: number): void {
    const heap = this.#heap;
    const timer = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = heap[parent]!;
      if (!earlier(timer, above)) break;
      heap[i] = above;
      above.index = i;
      i = parent;
    }
    heap[i] = timer;
    timer.index = i;
  }

  #down(i: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const timer = heap[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && earlier(heap[right]!, heap[left]!) ? right : left;
      const below = heap[child]!;
      if (!earlier(below, timer)) break;
      heap[i] = below;
      below.index = i;
      i = child;
    }
    heap[i] = timer;
    timer.index = i;
  }
}
