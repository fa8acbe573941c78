import type { GpioChip, GpioInput, GpioOutput } from "./GpioChip.js";

/**
 * The host MCU's BOOT (boot-mode select) input, driven by the module during an outboard firmware
 * update (`card.dfu`): driven HIGH or LOW to select the host's bootloader at its next reset, and
 * released otherwise (the line is claimed as an input, so the carrier's pull resistor decides, as
 * when no module is wired). Changes are applied in order; `settled()` waits for them.
 */
export class HostBootLine {
  readonly #chip: GpioChip;
  readonly #name: string;
  #output: GpioOutput | undefined;
  #input: GpioInput | undefined;
  #driven: boolean | undefined;
  #queue: Promise<void> = Promise.resolve();

  private constructor(chip: GpioChip, name: string) {
    this.#chip = chip;
    this.#name = name;
  }

  /** Claims the line, released (as an input). */
  static async claim(chip: GpioChip, name: string): Promise<HostBootLine> {
    const line = new HostBootLine(chip, name);
    line.#input = await chip.input(name, { consumer: "cardsim host BOOT" });
    return line;
  }

  /** The level the module drives, or undefined while the line is released. */
  get driven(): boolean | undefined {
    return this.#driven;
  }

  /** Drives the line to `high`, or releases it (undefined). */
  drive(high: boolean | undefined): void {
    this.#driven = high;
    this.#queue = this.#queue.then(async () => {
      if (high === undefined) {
        if (!this.#output) return;
        await this.#output.release();
        this.#output = undefined;
        this.#input = await this.#chip.input(this.#name, { consumer: "cardsim host BOOT" });
        return;
      }
      if (this.#output) return this.#output.write(high);
      await this.#input?.release();
      this.#input = undefined;
      this.#output = await this.#chip.output(this.#name, { initial: high, consumer: "cardsim host BOOT" });
    });
  }

  settled(): Promise<void> {
    return this.#queue;
  }

  async release(): Promise<void> {
    await this.#queue.catch(() => undefined);
    await this.#output?.release();
    await this.#input?.release();
    this.#output = this.#input = undefined;
  }
}
