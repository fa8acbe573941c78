import type { Clock } from "../core/Clock.js";
import { SimPowerSource } from "../firmware/PowerSource.js";
import {
  DischargePlayer,
  parseDischarge,
  type DischargeCurve,
  type PlayingDischarge,
} from "../runtime/DischargeCurve.js";
import type { PowerLossMode } from "../firmware/storage/flash/PowerLossFlashFs.js";
import type { LinkCapture } from "../hil/capture/LinkCapture.js";
import type { SimulatedModule } from "../runtime/SimulatedModule.js";
import { changeSupply, type SupplyChange } from "../runtime/supplyChange.js";

/**
 * The power of a scenario's module: clean power cycles and power failures (between requests or
 * in the middle of a flash write), each recorded in the capture, the links detached while the
 * module is down and attached to the new module once it booted.
 */
export class ScenarioPower {
  readonly #sim: SimulatedModule;
  readonly #waiters: (() => void)[] = [];
  /** The module is down after a power failure (not a clean cycle). */
  #lost = false;

  constructor(
    sim: SimulatedModule,
    links: { capture: LinkCapture | undefined; linkName: string; down: () => void; up: () => void },
  ) {
    this.#sim = sim;
    const record = (info: Record<string, unknown>) =>
      links.capture?.record(`${links.linkName}.module`, "h2m", "event", undefined, info);
    sim.on({
      powerOff: (off) => {
        links.down();
        if (off.kind === "cycle") record({ event: "power-off" });
        else record({ event: "power-loss", mode: off.mode, step: off.step });
        this.#lost = off.kind === "loss";
      },
      boot: () => {
        links.up();
        if (this.#lost) record({ event: "power-on" });
        this.#lost = false;
        for (const waiter of this.#waiters.splice(0)) waiter();
      },
    });
  }

  get losses(): number {
    return this.#sim.powerLosses;
  }

  get restoring(): Promise<void> | undefined {
    return this.#sim.restoring;
  }

  cycle(): Promise<void> {
    return this.#sim.powerCycle();
  }

  cut(mode: PowerLossMode, offMs: number): Promise<void> {
    return this.#sim.cutPower(mode, offMs);
  }

  arm(step: number, mode: PowerLossMode, offMs: number): void {
    this.#sim.armPowerLoss(step, mode, offMs);
  }

  /** Resolves once the module has lost power more than `seen` times and is running again. */
  backAfter(seen: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = () =>
        this.#sim.powerLosses > seen && !this.#sim.restoring ? resolve() : this.#waiters.push(check);
      check();
    });
  }
}

export type { SupplySource } from "../runtime/supplyChange.js";

/**
 * A scenario's supply (the module's `PowerSource`): set its source and voltage, or play a
 * discharge curve on the scenario's clock; `card.voltage`, the supply state and the
 * voltage-variable settings (`vinbound`, `voutbound`) follow.
 */
export class ScenarioSupply extends SimPowerSource {
  readonly #discharges: DischargePlayer;

  constructor(clock: Clock, volts?: number, onUsb?: boolean) {
    super(volts, onUsb);
    this.#discharges = new DischargePlayer(this, clock);
  }

  /**
   * Changes the supply as one event: `usb` (or `source`: `usb`/`line` are external power,
   * `battery` is not) and `volts`. A discharge being played keeps going unless `volts` is given.
   */
  supply(state: SupplyChange): void {
    changeSupply(this, state, this.#discharges);
  }

  /**
   * Plays a discharge curve from now (a curve, or the text of one: `linear:4.2-3.3/30d` or a CSV
   * of time,volts), updating the voltage every `stepMs` (default 15 minutes). Replaces a curve
   * being played; resolves `done` at the curve's end.
   */
  discharge(curve: DischargeCurve | string, options: { stepMs?: number } = {}): PlayingDischarge {
    return this.#discharges.playCurve(typeof curve === "string" ? parseDischarge(curve) : curve, options);
  }

  stopDischarge(): void {
    this.#discharges.stop();
  }
}
