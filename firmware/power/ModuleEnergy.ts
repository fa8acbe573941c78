import type { SessionEnergy } from "../../protocol/messages.js";
import type { ModuleCore } from "../ModuleCore.js";
import type { SessionOutcome, SyncEngine } from "../sync/SyncEngine.js";
import { ENERGY_CONFIG_KEY, EnergyMeter, type EnergyCounters, type EnergyRates } from "./EnergyMeter.js";

/**
 * The module's energy model across boots: each boot a new `EnergyMeter` continues from the
 * counters in flash and is charged for every session of that boot's sync engine; the counters are
 * saved after each session and before a restart (a power loss loses what was not saved).
 */
export class ModuleEnergy {
  readonly #module: Pick<ModuleCore, "clock" | "notebox" | "log">;
  readonly #rates: EnergyRates;
  #meter: EnergyMeter | undefined;

  constructor(module: Pick<ModuleCore, "clock" | "notebox" | "log">, rates: EnergyRates) {
    this.#module = module;
    this.#rates = rates;
  }

  /**
   * At boot: a meter from the counters in flash, charged for each of `sync`'s sessions; after
   * each, `background` runs a task that saves the counters (in a writer's turn).
   */
  boot(
    sync: Pick<SyncEngine, "isOnline" | "onSession" | "onEnd">,
    background: (task: () => void) => void,
  ): void {
    const meter = new EnergyMeter(
      this.#module.clock,
      this.#rates,
      this.#module.notebox.config<Partial<EnergyCounters>>(ENERGY_CONFIG_KEY),
      () => sync.isOnline,
    );
    this.#meter = meter;
    const charge = (outcome: SessionOutcome) =>
      meter.session({
        started: outcome.started,
        ended: outcome.ended,
        ok: outcome.ok,
        held: outcome.held,
        bytes: outcome.traffic.bytes_sent + outcome.traffic.bytes_received,
      });
    // A session that ends well is charged and saved in the turn that keeps its end; the others
    // (failed ones, whose end was not kept) when their outcome is told, and saved in a turn of
    // their own.
    sync.onEnd((outcome) => {
      charge(outcome);
      this.#save(meter);
    });
    sync.onSession((outcome) => {
      if (outcome.kept) return;
      charge(outcome);
      background(() => this.#save(meter));
    });
  }

  /** This boot's meter (undefined before the first boot). */
  get meter(): EnergyMeter | undefined {
    return this.#meter;
  }

  /** The counters a session record carries (undefined before the first boot). */
  sessionFields(): SessionEnergy | undefined {
    return this.#meter?.sessionFields();
  }

  /** Saves the counters now, as one transaction (before a restart, a clean power cycle). */
  async saveNow(): Promise<void> {
    const meter = this.#meter;
    if (!meter) return;
    try {
      await this.#module.notebox.transact(() => this.#save(meter));
    } catch (error) {
      this.#module.log.warn("could not save the energy counters", {
        error: String((error as Error)?.message),
      });
    }
  }

  /** In a turn: stores `meter`'s counters, unless a later boot has a meter of its own. */
  #save(meter: EnergyMeter): void {
    if (meter === this.#meter) this.#module.notebox.setConfig(ENERGY_CONFIG_KEY, meter.counters());
  }
}
