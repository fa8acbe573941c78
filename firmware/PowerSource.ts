/**
 * The module's supply: the power model port (the harness scripts it). `voltage()` is the supply
 * (battery) voltage in volts; the module measures it behind the carrier's diode and adds its
 * `card.voltage` calibration back, so with the default calibration it reports this value.
 */
export interface PowerSource {
  /** Supply voltage in volts. */
  voltage(): number;
  /** True when powered from USB (or line power). */
  usb(): boolean;
  /**
   * Calls `listener` after every change of voltage or USB state, so the module can keep an
   * exact voltage history and notice USB changes when they happen. Returns an unsubscribe
   * function. Optional: without it the module samples the port whenever a request reads it.
   */
  onChange?(listener: () => void): () => void;
}

/** A settable supply for simulations and tests: assigning `volts` or `onUsb` is a change. */
export class SimPowerSource implements PowerSource {
  #volts: number;
  #onUsb: boolean;
  readonly #listeners = new Set<() => void>();

  constructor(volts = 3.9, onUsb = false) {
    this.#volts = volts;
    this.#onUsb = onUsb;
  }

  get volts(): number {
    return this.#volts;
  }

  set volts(value: number) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`supply voltage must be >= 0 V, got ${value}`);
    if (value === this.#volts) return;
    this.#volts = value;
    this.#notify();
  }

  get onUsb(): boolean {
    return this.#onUsb;
  }

  set onUsb(value: boolean) {
    if (value === this.#onUsb) return;
    this.#onUsb = value;
    this.#notify();
  }

  /** Changes voltage and USB state as one event (plugging in a USB supply raises both). */
  set(state: { volts?: number; onUsb?: boolean }): void {
    const volts = state.volts ?? this.#volts;
    if (!Number.isFinite(volts) || volts < 0)
      throw new RangeError(`supply voltage must be >= 0 V, got ${volts}`);
    const onUsb = state.onUsb ?? this.#onUsb;
    if (volts === this.#volts && onUsb === this.#onUsb) return;
    this.#volts = volts;
    this.#onUsb = onUsb;
    this.#notify();
  }

  voltage(): number {
    return this.#volts;
  }

  usb(): boolean {
    return this.#onUsb;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
