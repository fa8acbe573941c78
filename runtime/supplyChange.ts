import type { SimPowerSource } from "../firmware/PowerSource.js";
import type { DischargePlayer } from "./DischargeCurve.js";

/** Where the supply comes from: `usb` and `line` count as external power, `battery` does not. */
export type SupplySource = "usb" | "battery" | "line";

/** A change of the supply: its source (or `usb` alone) and its voltage. */
export interface SupplyChange {
  readonly usb?: boolean;
  readonly source?: SupplySource;
  readonly volts?: number;
}

/**
 * Changes the supply as one event (one `onChange`). A voltage set by hand takes over from the
 * discharge being played, which otherwise keeps going.
 */
export function changeSupply(
  power: SimPowerSource,
  change: SupplyChange,
  discharge?: Pick<DischargePlayer, "stop">,
): void {
  if (change.volts !== undefined) discharge?.stop();
  const onUsb = change.source !== undefined ? change.source !== "battery" : change.usb;
  power.set({
    ...(change.volts !== undefined ? { volts: change.volts } : {}),
    ...(onUsb !== undefined ? { onUsb } : {}),
  });
}
