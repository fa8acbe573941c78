import type { Clock } from "../../core/Clock.js";

/** The module's four general-purpose pins on the edge connector, AUX1 to AUX4. */
export const AUX_PINS = [1, 2, 3, 4] as const;
export type AuxPin = (typeof AUX_PINS)[number];

export type AuxPull = "none" | "up" | "down";

/** How the module sets a pin up: an output at a level, or an input with a pull resistor. */
export type AuxPinSetup =
  { readonly output: true; readonly high: boolean } | { readonly output: false; readonly pull: AuxPull };

/** A change of a pin's level (true = HIGH), at module clock ms. */
export interface AuxEdge {
  readonly pin: AuxPin;
  readonly high: boolean;
  readonly at: number;
}

/**
 * The AUX pins as the module sees them: it sets each pin up, reads its level and hears its
 * edges. Simulated lines implement it in the world model (`SimAuxLines`); on a rig a board
 * adapter maps the four pins to GPIO lines.
 */
export interface AuxPins {
  setup(pin: AuxPin, setup: AuxPinSetup): void;
  /** The level on the wire (true = HIGH). */
  read(pin: AuxPin): boolean;
  /** Calls `listener` on every level change of any pin; returns an unsubscribe function. */
  onEdge(listener: (edge: AuxEdge) => void): () => void;
}

interface Line {
  setup: AuxPinSetup;
  /** What the outside drives onto the pin: a level, or nothing (undefined). */
  external: boolean | undefined;
  level: boolean;
}

/**
 * Four simulated GPIO lines between the module and the outside world. A scenario drives a line
 * (a button, a pulse train, a sensor output), releases it, and reads what the module drives.
 * The level on a line is the module's output when it drives one, else what the outside drives,
 * else its pull (a floating input reads LOW).
 */
export class SimAuxLines implements AuxPins {
  readonly #clock: Clock;
  readonly #lines = new Map<AuxPin, Line>();
  readonly #listeners = new Set<(edge: AuxEdge) => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
    for (const pin of AUX_PINS)
      this.#lines.set(pin, { setup: { output: false, pull: "none" }, external: undefined, level: false });
  }

  // --- the module's side ---------------------------------------------------------------------

  setup(pin: AuxPin, setup: AuxPinSetup): void {
    this.#line(pin).setup = setup;
    this.#settle(pin);
  }

  read(pin: AuxPin): boolean {
    return this.#line(pin).level;
  }

  onEdge(listener: (edge: AuxEdge) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // --- the outside world's side --------------------------------------------------------------

  /** Drives a pin HIGH (true) or LOW (false) from outside, as a button or a sensor would. */
  drive(pin: AuxPin, high: boolean): void {
    this.#line(pin).external = high;
    this.#settle(pin);
  }

  /** Stops driving a pin from outside: it floats to its pull. */
  release(pin: AuxPin): void {
    this.#line(pin).external = undefined;
    this.#settle(pin);
  }

  /** The level on the wire. */
  level(pin: AuxPin): boolean {
    return this.#line(pin).level;
  }

  /** What the module has made of the pin: `{output, high}` or `{output:false, pull}`. */
  setupOf(pin: AuxPin): AuxPinSetup {
    return this.#line(pin).setup;
  }

  /** The level the module drives, or undefined when the pin is not a module output. */
  driven(pin: AuxPin): boolean | undefined {
    const setup = this.#line(pin).setup;
    return setup.output ? setup.high : undefined;
  }

  #line(pin: AuxPin): Line {
    const line = this.#lines.get(pin);
    if (!line) throw new RangeError(`AUX pins are 1 to 4, not ${String(pin)}`);
    return line;
  }

  #settle(pin: AuxPin): void {
    const line = this.#line(pin);
    const s = line.setup;
    const level = s.output ? s.high : (line.external ?? s.pull === "up");
    if (level === line.level) return;
    line.level = level;
    const edge = { pin, high: level, at: this.#clock.now() };
    for (const listener of [...this.#listeners]) listener(edge);
  }
}
