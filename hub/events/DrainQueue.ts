/**
 * Work told after commits (stored events, windows that end), handled in order by one drain at a
 * time: what arrives while a drain runs joins it, and the drain's first look waits a turn so that
 * the rest of a committed batch arrives first. `handle` takes from the front of the queue what it
 * handles in one step (all of it, or a run of one kind); a step that throws is reported and the
 * drain goes on. Once stopped, nothing more is taken and what waits is dropped.
 */
export class DrainQueue<T> {
  #pending: T[] = [];
  #draining: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly handle: (pending: T[]) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  push(item: T): void {
    if (this.#stopped) return;
    this.#pending.push(item);
    this.#start();
  }

  /** Pushes several items at once, in their order (a committed batch told in one call). */
  pushAll(items: readonly T[]): void {
    if (this.#stopped || items.length === 0) return;
    for (const item of items) this.#pending.push(item);
    this.#start();
  }

  #start(): void {
    this.#draining ??= this.#drain();
  }

  /** Resolves once everything pushed so far has been handled. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  stop(): void {
    this.#stopped = true;
    this.#pending = [];
  }

  /** Over once nothing waits: the drain itself says so (no `finally` chained on it, two promises fewer). */
  async #drain(): Promise<void> {
    try {
      // Let the rest of the committed batch arrive before looking at it.
      await Promise.resolve();
      while (this.#pending.length > 0 && !this.#stopped) {
        try {
          await this.handle(this.#pending);
        } catch (error) {
          if (!this.#stopped) this.onError(error);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }
}
