import type { AttnPin } from "../firmware/attn/AttnPin.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";

/**
 * The module's ATTN output as a scenario watches it: its level, every edge with its time, and
 * waiters for a level. On a board the level also drives the board's GPIO line.
 */
export class ScenarioAttn {
  readonly #listeners: ((high: boolean) => void)[] = [];
  readonly #edges: { t: number; high: boolean }[] = [];
  readonly #elapsed: () => number;
  readonly #capture: LinkCapture | undefined;
  #level = true;

  constructor(elapsed: () => number, capture: LinkCapture | undefined) {
    this.#elapsed = elapsed;
    this.#capture = capture;
  }

  get level(): boolean {
    return this.#level;
  }

  get edges(): readonly { t: number; high: boolean }[] {
    return this.#edges;
  }

  /** The pin the module drives: watched here, and passed on to `line` (a board's GPIO). */
  pin(line?: AttnPin): AttnPin {
    return {
      write: (high) => {
        line?.write(high);
        if (high === this.#level) return;
        this.#level = high;
        this.#edges.push({ t: this.#elapsed(), high });
        this.#capture?.record("attn", "m2h", "event", undefined, { attn: high ? "high" : "low" });
        for (const l of [...this.#listeners]) l(high);
      },
    };
  }

  /** Resolves when the level is `high` (now or later). */
  when(high: boolean): Promise<void> {
    if (this.#level === high) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const listener = (level: boolean) => {
        if (level !== high) return;
        this.#listeners.splice(this.#listeners.indexOf(listener), 1);
        resolve();
      };
      this.#listeners.push(listener);
    });
  }
}
