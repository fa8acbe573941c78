import type { Clock } from "../../core/Clock.js";
import type { GpioBias, GpioChip, GpioDrive, GpioInput, GpioOutput } from "./GpioChip.js";

/** One level change on a simulated line, stamped with the chip's clock. */
export interface GpioEdge {
  readonly at: number;
  readonly high: boolean;
}

interface SimLine {
  level: boolean;
  owner: "output" | "input" | undefined;
  drive: GpioDrive | undefined;
  history: GpioEdge[];
  listeners: ((high: boolean) => void)[];
}

/**
 * A simulated GPIO chip: outputs record every level with the time it was set, inputs are driven
 * by the test (`drive`). Claiming a line twice fails as on the real character device.
 */
export class SimGpioChip implements GpioChip {
  readonly #clock: Clock;
  readonly #lines = new Map<string, SimLine>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #line(name: string | number): SimLine {
    const key = String(name);
    let line = this.#lines.get(key);
    if (!line)
      this.#lines.set(
        key,
        (line = { level: false, owner: undefined, drive: undefined, history: [], listeners: [] }),
      );
    return line;
  }

  #claim(name: string | number, owner: "output" | "input"): SimLine {
    const line = this.#line(name);
    if (line.owner) throw new Error(`GPIO line ${name} is busy (already claimed as ${line.owner})`);
    line.owner = owner;
    return line;
  }

  async output(
    name: string | number,
    options: { initial?: boolean; drive?: GpioDrive } = {},
  ): Promise<GpioOutput> {
    const line = this.#claim(name, "output");
    line.drive = options.drive ?? "push-pull";
    const set = (high: boolean) => {
      if (line.history.length > 0 && line.level === high) return;
      line.level = high;
      line.history.push({ at: this.#clock.now(), high });
      for (const l of line.listeners) l(high);
    };
    set(options.initial ?? false);
    return {
      line: name,
      get level() {
        return line.level;
      },
      write: set,
      settled: async () => undefined,
      release: async () => {
        line.owner = undefined;
      },
    };
  }

  async input(name: string | number, options: { bias?: GpioBias } = {}): Promise<GpioInput> {
    const line = this.#claim(name, "input");
    if (line.history.length === 0 && options.bias === "pull-up") line.level = true;
    const listeners: ((high: boolean) => void)[] = [];
    const notify = (high: boolean) => listeners.forEach((l) => l(high));
    line.listeners.push(notify);
    return {
      line: name,
      get level() {
        return line.level;
      },
      onChange: (listener) => void listeners.push(listener),
      release: async () => {
        line.owner = undefined;
        line.listeners = line.listeners.filter((l) => l !== notify);
      },
    };
  }

  /** Sets the level of a line from outside (the host driving an input, a test). */
  drive(name: string | number, high: boolean): void {
    const line = this.#line(name);
    if (line.owner === "output") throw new Error(`GPIO line ${name} is an output of this chip`);
    if (line.level === high && line.history.length > 0) return;
    line.level = high;
    line.history.push({ at: this.#clock.now(), high });
    for (const l of line.listeners) l(high);
  }

  level(name: string | number): boolean {
    return this.#line(name).level;
  }

  /** How the line's output drives it (undefined if it was never an output). */
  driveMode(name: string | number): GpioDrive | undefined {
    return this.#line(name).drive;
  }

  /** Every level the line took, oldest first. */
  history(name: string | number): readonly GpioEdge[] {
    return this.#line(name).history;
  }

  async close(): Promise<void> {
    for (const line of this.#lines.values()) line.owner = undefined;
  }
}
