import type { Clock, TimerHandle } from "../core/Clock.js";

/**
 * The radio conditions a scenario scripts for its module: in coverage or not. This is the hook
 * the module's sync engine reads (it arrives with hub synchronization, a later capability); until
 * then scenarios can already script outages and see them in captures and replays.
 */
export class ScenarioRadio {
  readonly #clock: Clock;
  readonly #listeners: ((online: boolean) => void)[] = [];
  #online = true;
  #restore: TimerHandle | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** True while the module has coverage. */
  get online(): boolean {
    return this.#online;
  }

  /** Called with the new state whenever coverage is lost or comes back. */
  onChange(listener: (online: boolean) => void): void {
    this.#listeners.push(listener);
  }

  /** Sets coverage; with `forMs`, an outage that ends by itself. */
  set(online: boolean, forMs?: number): void {
    if (this.#restore !== undefined) this.#clock.clearTimer(this.#restore);
    this.#restore = undefined;
    if (forMs !== undefined) {
      if (!(forMs > 0)) throw new Error(`an outage lasts > 0 ms, got ${forMs}`);
      this.#restore = this.#clock.setTimer(() => {
        this.#restore = undefined;
        this.#change(!online);
      }, forMs);
    }
    this.#change(online);
  }

  dispose(): void {
    if (this.#restore !== undefined) this.#clock.clearTimer(this.#restore);
    this.#restore = undefined;
  }

  #change(online: boolean): void {
    if (online === this.#online) return;
    this.#online = online;
    for (const l of this.#listeners) l(online);
  }
}
