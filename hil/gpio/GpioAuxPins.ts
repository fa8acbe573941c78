import type { Clock } from "../../core/Clock.js";
import {
  AUX_PINS,
  type AuxEdge,
  type AuxPin,
  type AuxPinSetup,
  type AuxPins,
} from "../../firmware/world/AuxPins.js";
import type { GpioBias, GpioChip, GpioInput, GpioOutput } from "./GpioChip.js";

type Claim =
  | { readonly kind: "output"; readonly line: GpioOutput }
  | { readonly kind: "input"; readonly line: GpioInput };

const BIAS: Record<"none" | "up" | "down", GpioBias> = { none: "disabled", up: "pull-up", down: "pull-down" };

/**
 * The module's AUX1..AUX4 pins on a rig: four GPIO lines of the board (named in its definition),
 * claimed as outputs or inputs as `card.aux` sets them up. GPIO claims are asynchronous, the
 * module's calls are not: a change of setup is applied in order in the background, and `read`
 * answers the level last seen (an output reads what it drives).
 */
export class GpioAuxPins implements AuxPins {
  readonly #chip: GpioChip;
  readonly #clock: Clock;
  readonly #lines: ReadonlyMap<AuxPin, string>;
  readonly #claims = new Map<AuxPin, Claim>();
  readonly #levels = new Map<AuxPin, boolean>();
  readonly #listeners = new Set<(edge: AuxEdge) => void>();
  #work: Promise<void> = Promise.resolve();
  #onError: (error: unknown) => void;

  constructor(
    chip: GpioChip,
    lines: readonly string[],
    options: { clock: Clock; onError?: (error: unknown) => void },
  ) {
    if (lines.length !== AUX_PINS.length)
      throw new Error(`AUX needs ${AUX_PINS.length} GPIO lines, got ${lines.length}`);
    this.#chip = chip;
    this.#clock = options.clock;
    this.#lines = new Map(AUX_PINS.map((pin, i) => [pin, lines[i]!]));
    this.#onError = options.onError ?? (() => undefined);
    for (const pin of AUX_PINS) this.#levels.set(pin, false);
  }

  setup(pin: AuxPin, setup: AuxPinSetup): void {
    if (setup.output) this.#set(pin, setup.high);
    this.#work = this.#work
      .then(() => this.#claim(pin, setup))
      .catch((error: unknown) => this.#onError(error));
  }

  read(pin: AuxPin): boolean {
    return this.#levels.get(pin) ?? false;
  }

  onEdge(listener: (edge: AuxEdge) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once every setup change so far reached the lines. */
  settled(): Promise<void> {
    return this.#work;
  }

  /** Releases the lines. */
  async close(): Promise<void> {
    await this.#work;
    for (const claim of this.#claims.values()) await claim.line.release();
    this.#claims.clear();
  }

  async #claim(pin: AuxPin, setup: AuxPinSetup): Promise<void> {
    const line = this.#lines.get(pin)!;
    const current = this.#claims.get(pin);
    if (setup.output && current?.kind === "output") {
      current.line.write(setup.high);
      return;
    }
    if (current) {
      this.#claims.delete(pin);
      await current.line.release();
    }
    if (setup.output) {
      const output = await this.#chip.output(line, { initial: setup.high, consumer: `cardsim AUX${pin}` });
      this.#claims.set(pin, { kind: "output", line: output });
      return;
    }
    const input = await this.#chip.input(line, { bias: BIAS[setup.pull], consumer: `cardsim AUX${pin}` });
    this.#claims.set(pin, { kind: "input", line: input });
    this.#set(pin, input.level);
    input.onChange((high) => {
      if (this.#claims.get(pin)?.line === input) this.#set(pin, high);
    });
  }

  #set(pin: AuxPin, high: boolean): void {
    if (this.#levels.get(pin) === high) return;
    this.#levels.set(pin, high);
    const edge: AuxEdge = { pin, high, at: this.#clock.now() };
    for (const listener of [...this.#listeners]) listener(edge);
  }
}
