/** The right to change a module's state, held by one writer at a time. */
export interface Turn {
  /** Gives the turn to the next writer in line. Releasing twice is harmless. */
  release(): void;
}

/** A turn handed out: released once, whoever calls `release` again. */
class HeldTurn implements Turn {
  #released = false;

  constructor(private readonly handOn: () => void) {}

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.handOn();
  }
}

/**
 * One writer at a time, in arrival order. Requests from every link, the module's own background
 * work, the sync engine and a harness's scripted world all take a turn here before they touch
 * the module's state, so no two of them ever interleave inside a change.
 *
 * The writers in line are a list, not a chain of promises: a turn taken while nobody holds or
 * waits for one (most turns of a module: a request, a sync step) is handed over at once
 * (`take`), with no promise made for it.
 */
export class WriterQueue {
  #held = false;
  /** Writers waiting for their turn, in arrival order. */
  readonly #waiting: ((turn: Turn) => void)[] = [];
  /** Turns handed out, and turns released: the n-th handed out is the n-th released. */
  #handed = 0;
  #released = 0;
  /** `idle` callers: resolved once this many turns have been released. */
  readonly #idle: { readonly until: number; readonly resolve: () => void }[] = [];

  /**
   * The turn, now when nobody holds or waits for one, else once every writer queued before has
   * released its turn.
   */
  take(): Turn | Promise<Turn> {
    if (!this.#held && this.#waiting.length === 0) {
      this.#held = true;
      this.#handed++;
      return this.#turn();
    }
    this.#handed++;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Waits until every writer queued before has released its turn. */
  acquire(): Promise<Turn> {
    return Promise.resolve(this.take());
  }

  /** Runs `task` in its own turn. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const turn = await this.take();
    try {
      return await task();
    } finally {
      turn.release();
    }
  }

  /** Writers waiting for their turn (not counting the one holding it). */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves once every writer queued so far has finished. */
  idle(): Promise<void> {
    const until = this.#handed;
    if (this.#released >= until) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push({ until, resolve }));
  }

  #turn(): Turn {
    return new HeldTurn(this.#handOn);
  }

  /** The turn goes on (one function for every turn, not a closure made per turn). */
  readonly #handOn = (): void => this.#next();

  /** The turn goes to the next writer in line, or back to the queue. */
  #next(): void {
    this.#released++;
    while (this.#idle.length > 0 && this.#idle[0]!.until <= this.#released) this.#idle.shift()!.resolve();
    const next = this.#waiting.shift();
    if (next) next(this.#turn());
    else this.#held = false;
  }
}
