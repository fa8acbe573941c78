import { canReachHub, type SimRadioConditions } from "../firmware/radio/RadioConditions.js";

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
}
