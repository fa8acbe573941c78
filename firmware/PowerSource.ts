/** The module's supply as it measures it: the power model port (harness scripts it). */
export interface PowerSource {
  /** Supply voltage in volts. */
  voltage(): number;
  /** True when powered from USB (or line power). */
  usb(): boolean;
}

/** A settable supply for simulations and tests. */
export class SimPowerSource implements PowerSource {
  constructor(
    public volts = 3.9,
    public onUsb = false,
  ) {}

  voltage(): number {
    return this.volts;
  }

  usb(): boolean {
    return this.onUsb;
  }
}
