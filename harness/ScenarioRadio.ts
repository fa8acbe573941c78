import {
  canReachHub,
  type RadioState,
  type SignalPreset,
  type SimRadioConditions,
} from "../firmware/radio/RadioConditions.js";

/** Signal fields a scenario may set directly (registration and the hub have `outage`). */
export type SignalFields = Partial<
  Pick<RadioState, "rat" | "bearer" | "rssi" | "rsrp" | "rsrq" | "sinr" | "bars">
>;

/**
 * The radio conditions of a scenario's module, as the world scripts them: in coverage or not
 * (`conditions` has the whole model: signal, registration, the hub connection, latency).
 */
export class ScenarioRadio {
  readonly conditions: SimRadioConditions;

  constructor(conditions: SimRadioConditions) {
    this.conditions = conditions;
  }

  /** True while the module can reach the hub. */
  get online(): boolean {
    return canReachHub(this.conditions.state());
  }

  /** Called with the new state whenever coverage is lost or comes back. */
  onChange(listener: (online: boolean) => void): void {
    let online = this.online;
    this.conditions.onChange(() => {
      if (this.online === online) return;
      online = this.online;
      listener(online);
    });
  }

  /** Loses coverage (for `forMs`: an outage that ends by itself), or brings it back. */
  set(online: boolean, forMs?: number): void {
    if (online) {
      if (forMs !== undefined) throw new Error("only an outage can end by itself (online: false)");
      this.conditions.restore();
    } else {
      this.conditions.outage("registration", forMs);
    }
  }

  /** The radio as it is now: signal, registration, the hub, latency. */
  get state(): RadioState {
    return this.conditions.state();
  }

  /**
   * Sets the signal: a preset (`good`, `fair`, `poor`, `none`; on `rat`, the current one by
   * default) or fields (`{rssi: -101, bars: 1}`). `none` also loses registration.
   */
  signal(signal: SignalPreset | SignalFields, rat?: string): void {
    if (typeof signal === "string") this.conditions.signal(signal, rat);
    else this.conditions.set({ ...signal, ...(rat ? { rat } : {}) });
  }

  /**
   * An outage of the network (`registration`, the default) or of the hub alone (`hub`: the
   * module registers but cannot reach its hub); with `forMs` it ends by itself.
   */
  outage(options: { what?: "registration" | "hub"; forMs?: number } = {}): void {
    this.conditions.outage(options.what ?? "registration", options.forMs);
  }

  /** Ends any outage. */
  restore(): void {
    this.conditions.restore();
  }

  /** Each exchange with the hub takes `ms` of the module's clock. */
  latency(ms: number): void {
    this.conditions.latency(ms);
  }

  /** The next `n` connections to the hub fail (sessions fail before the hub hears them). */
  failHub(n: number): void {
    this.conditions.failConnects(n);
  }
}
