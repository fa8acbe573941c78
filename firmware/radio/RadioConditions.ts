import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { SessionRadio } from "../../protocol/sessionRadio.js";

/**
 * What the module's radio sees now: registration, signal, and whether the hub answers. The
 * technology and signal fields are the protocol's `SessionRadio`, which every session reports.
 */
export interface RadioState extends SessionRadio {
  /** Registered on a network (cellular) or associated (WiFi). */
  readonly registered: boolean;
  /** The hub answers when the module connects (false: registered, but the hub cannot be reached). */
  readonly hubReachable: boolean;
  /** Round-trip time of one exchange with the hub, in ms. */
  readonly latencyMs: number;
  /** Why the module is not registered, in its own words (a WiFi join failure); absent: no network. */
  readonly reason?: string;
}

/**
 * The radio conditions port: where the module is, as far as coverage goes. Simulated by
 * `SimRadioConditions` (scripted by a harness or the CLI); a rig could feed measured values.
 */
export interface RadioConditions {
  state(): RadioState;
  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  /**
   * Called when the module opens a connection to its hub: true when this connection is to fail
   * (a scripted failure, `failConnects`). Absent: connections fail only for lack of coverage.
   */
  connectFails?(): boolean;
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

/** Signal quality presets a scenario or the CLI (`--signal`) picks. */
export const SIGNAL_PRESETS = ["good", "fair", "poor", "none"] as const;
export type SignalPreset = (typeof SIGNAL_PRESETS)[number];

/** Radio access technologies a preset can be for, and the bearer sessions record for each. */
export const RAT_BEARERS: Readonly<Record<string, string>> = {
  lte: "LTE Cat-1",
  catm: "LTE Cat-M1",
  nbiot: "LTE NB-IoT",
  gsm: "GSM",
  wifi: "WiFi 2.4GHz",
  lora: "LoRaWAN",
  ntn: "NTN",
};

type Signal = Pick<RadioState, "rssi" | "rsrp" | "rsrq" | "sinr" | "bars">;

/** LTE-family values per preset (`good` is the desk coverage modules start with). */
const LTE_SIGNAL: Record<SignalPreset, Signal> = {
  good: { rssi: -69, rsrp: -97, rsrq: -10, sinr: 11, bars: 3 },
  fair: { rssi: -83, rsrp: -108, rsrq: -13, sinr: 3, bars: 2 },
  poor: { rssi: -97, rsrp: -119, rsrq: -18, sinr: -3, bars: 1 },
  none: { rssi: -113, rsrp: -140, rsrq: -20, sinr: -20, bars: 0 },
};

/** RSSI only (WiFi, GSM, LoRa, NTN): no LTE reference-signal measurements. */
const RSSI_ONLY: Record<SignalPreset, number> = { good: -55, fair: -70, poor: -82, none: -100 };

/**
 * The radio state of a preset on a RAT (`lte` by default): the signal values, bars, and for
 * `none` no registration. Latency and the hub's reachability are left as they are.
 */
export function signalPreset(preset: SignalPreset, rat = "lte"): Partial<RadioState> {
  if (!(SIGNAL_PRESETS as readonly string[]).includes(preset))
    throw new Error(`unknown signal preset ${String(preset)}: one of ${SIGNAL_PRESETS.join(", ")}`);
  const bearer = RAT_BEARERS[rat];
  if (bearer === undefined)
    throw new Error(`unknown radio access technology ${rat}: one of ${Object.keys(RAT_BEARERS).join(", ")}`);
  const lteFamily = rat === "lte" || rat === "catm" || rat === "nbiot";
  const signal: Signal = lteFamily
    ? LTE_SIGNAL[preset]
    : { rssi: RSSI_ONLY[preset], rsrp: 0, rsrq: 0, sinr: 0, bars: LTE_SIGNAL[preset].bars };
  return { ...signal, rat, bearer, registered: preset !== "none" };
}

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
  #failConnects = 0;
  /** Access technologies without coverage here (`coverage`): `cell`, `wifi`, `ntn`. */
  readonly #uncovered = new Set<string>();

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

  /** Applies a signal preset (`good`, `fair`, `poor`, `none`) on a RAT (the current one by default). */
  signal(preset: SignalPreset, rat: string = this.#state.rat): void {
    this.set(signalPreset(preset, rat));
  }

  /**
   * Whether the surroundings give an access technology (`cell`, `wifi`, `ntn`) coverage: a module
   * whose transport method tries several (`card.transport`) falls back to the next one covered.
   */
  coverage(technology: "cell" | "wifi" | "ntn", covered: boolean): void {
    if (covered === !this.#uncovered.has(technology)) return;
    if (covered) this.#uncovered.delete(technology);
    else this.#uncovered.add(technology);
    for (const listener of [...this.#listeners]) listener();
  }

  covers(technology: string): boolean {
    return !this.#uncovered.has(technology);
  }

  /** Each exchange with the hub takes `ms` of the module's clock (0: instant). */
  latency(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`latency is >= 0 ms, got ${ms}`);
    this.#apply({ latencyMs: ms });
  }

  /** The next `n` connections to the hub fail (the hub never hears them), coverage or not. */
  failConnects(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`failConnects takes a count >= 0, got ${n}`);
    this.#failConnects = n;
  }

  /** Connections still to fail (`failConnects`). */
  get connectFailuresLeft(): number {
    return this.#failConnects;
  }

  connectFails(): boolean {
    if (this.#failConnects <= 0) return false;
    this.#failConnects--;
    return true;
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
