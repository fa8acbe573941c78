import type { SimPowerSource } from "../firmware/PowerSource.js";

/** Where the supply comes from: `usb` and `line` count as external power, `battery` does not. */
export type SupplySource = "usb" | "battery" | "line";

/** A change of the supply: its source (or `usb` alone) and its voltage. */
export interface SupplyChange {
  readonly usb?: boolean;
  readonly source?: SupplySource;
  readonly volts?: number;
}

/** Where a discharge being played stands. */
export interface DischargeState {
  readonly fromVolts: number;
  readonly toVolts: number;
  readonly durationMs: number;
  /** Time since it started on the module's clock, at most `durationMs`. */
  readonly elapsedMs: number;
  readonly finished: boolean;
}

/**
 * Plays discharge curves on a supply, one at a time (`harness/DischargeCurve`'s
 * `DischargePlayer`): the control API starts one from a text, replaces or stops it, and reports it.
 */
export interface DischargeControl {
  /** Plays the curve `text` describes (`linear:FROM-TO/TIME` or CSV rows time,volts) from now, in place of one that plays; throws a one-line mistake. */
  play(text: string): void;
  /** Stops the curve playing, leaving the voltage where it is. */
  stop(): void;
  /** The curve started last, if one was. */
  state(): DischargeState | undefined;
}

/**
 * Changes the supply as one event (one `onChange`). A voltage set by hand takes over from the
 * discharge being played, which otherwise keeps going.
 */
export function changeSupply(
  power: SimPowerSource,
  change: SupplyChange,
  discharge?: Pick<DischargeControl, "stop">,
): void {
  if (change.volts !== undefined) discharge?.stop();
  const onUsb = change.source !== undefined ? change.source !== "battery" : change.usb;
  power.set({
    ...(change.volts !== undefined ? { volts: change.volts } : {}),
    ...(onUsb !== undefined ? { onUsb } : {}),
  });
}
