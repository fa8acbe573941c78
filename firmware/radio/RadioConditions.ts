import type { Clock, TimerHandle } from "../../core/Clock.js";

/** What the module's radio sees now: registration, signal, and whether the hub answers. */
export interface RadioState {
  /** Registered on a network (cellular) or associated (WiFi). */
  readonly registered: boolean;
  /** The hub answers when the module connects (false: registered, but the hub cannot be reached). */
  readonly hubReachable: boolean;
  /** Radio access technology, as `card.wireless` reports it (`lte`, `catm`, `nbiot`, `gsm`, `wifi`...). */
  readonly rat: string;
  /** The bearer sessions record (`LTE Cat-1`, `WiFi 2.4GHz`...). */
  readonly bearer: string;
  readonly rssi: number;
  readonly rsrp: number;
  readonly rsrq: number;
  readonly sinr: number;
  /** Signal bars, 0 to 4. */
  readonly bars: number;
  /** Round-trip time of one exchange with the hub, in ms. */
  readonly latencyMs: number;
}

/**
 * The radio conditions port: where the module is, as far as coverage goes. Simulated by
 * `SimRadioConditions` (scripted by a harness or the CLI); a rig could feed measured values.
 */
export interface RadioConditions {
  state(): RadioState;
  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** Good LTE coverage: what a module on a desk sees. */
export const GOOD_COVERAGE: RadioState = {
  registered: true,
  hubReachable: true,
  rat: "lte",
  bearer: "LTE Cat-1",
  rssi: -69,
  rsrp: -97,
  rsrq: -10,
  sinr: 11,
  bars: 3,
  latencyMs: 0,
};

/** True when an exchange with the hub can happen now. */
export function canReachHub(state: RadioState): boolean {
  return state.registered && state.hubReachable;
}

/**
 * Settable radio conditions on the module's clock: signal changes, outages (of the network or of
 * the hub connection only) that end by themselves after a while or when restored.
 */
export class SimRadioConditions implements RadioConditions {
  readonly #clock: Clock;
  readonly #listeners = new Set<() => void>();
  #state: RadioState;
  #restore: TimerHandle | undefined;

  constructor(clock: Clock, initial: Partial<RadioState> = {}) {
    this.#clock = clock;
    this.#state = { ...GOOD_COVERAGE, ...initial };
  }

  state(): RadioState {
    return this.#state;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Changes some of the conditions now (an outage in progress is cancelled). */
  set(change: Partial<RadioState>): void {
    this.#cancelRestore();
    this.#apply(change);
  }

  /**
   * Loses the network (`registration`) or just the hub (`hub`); with `forMs` the outage ends by
   * itself after that long.
   */
  outage(what: "registration" | "hub" = "registration", forMs?: number): void {
    if (forMs !== undefined && !(forMs > 0)) throw new Error(`an outage lasts > 0 ms, got ${forMs}`);
    this.#cancelRestore();
    this.#apply(what === "registration" ? { registered: false } : { hubReachable: false });
    if (forMs !== undefined) {
      this.#restore = this.#clock.setTimer(() => {
        this.#restore = undefined;
        this.#apply({ registered: true, hubReachable: true });
      }, forMs);
    }
  }

  /** Ends any outage. */
  restore(): void {
    this.set({ registered: true, hubReachable: true });
  }

  dispose(): void {
    this.#cancelRestore();
    this.#listeners.clear();
  }

  #cancelRestore(): void {
    if (this.#restore !== undefined) this.#clock.clearTimer(this.#restore);
    this.#restore = undefined;
  }

  #apply(change: Partial<RadioState>): void {
    const next = { ...this.#state, ...change };
    if (Object.keys(change).every((k) => next[k as keyof RadioState] === this.#state[k as keyof RadioState]))
      return;
    this.#state = next;
    for (const listener of [...this.#listeners]) listener();
  }
}
