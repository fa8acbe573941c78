/** The right to change a module's state, held by one writer at a time. */
export interface Turn {
  /** Gives the turn to the next writer in line. Releasing twice is harmless. */
  release(): void;
}

/**
 * One writer at a time, in arrival order. Requests from every link, the module's own background
 * work, the sync engine and a harness's scripted world all take a turn here before they touch
 * the module's state, so no two of them ever interleave inside a change.
 */
export class WriterQueue {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  /** Waits until every writer queued before has released its turn. */
  acquire(): Promise<Turn> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => done);
    this.#waiting++;
    return previous.then(() => {
      this.#waiting--;
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          release();
        },
      };
    });
  }

  /** Runs `task` in its own turn. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const turn = await this.acquire();
    try {
      return await task();
    } finally {
      turn.release();
    }
  }

  /** Writers waiting for their turn (not counting the one holding it). */
  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves once every writer queued so far has finished. */
  idle(): Promise<void> {
    return this.#tail;
  }
}
