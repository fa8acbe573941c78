/**
 * GPIO lines at the edge, behind one small interface: the Linux GPIO character device (through
 * the gpiod tools) on a rig, a simulated chip in tests. Lines are named by the chip's line name
 * (`GPIO17` on a Raspberry Pi) or by offset. HIGH is `true` (physical level: no active-low here).
 */
export interface GpioChip {
  /** Claims a line as an output, driven to `initial` at once. */
  output(
    line: string | number,
    options?: GpioLineOptions & { initial?: boolean; drive?: GpioDrive },
  ): Promise<GpioOutput>;
  /** Claims a line as an input and watches both edges. */
  input(line: string | number, options?: GpioLineOptions & { bias?: GpioBias }): Promise<GpioInput>;
  /** Releases every line claimed through this chip. */
  close(): Promise<void>;
}

export type GpioBias = "as-is" | "pull-up" | "pull-down" | "disabled";

/**
 * How an output drives its line: `push-pull` drives both levels; `open-drain` only pulls LOW and
 * lets go for HIGH (a pull-up on the line makes the level), so it never fights another driver of
 * the same line, like a reset button, the MCU's own reset circuit or a debug probe. On a Pi the
 * kernel emulates open drain by turning the line into an input for HIGH.
 */
export type GpioDrive = "push-pull" | "open-drain";

export interface GpioLineOptions {
  /** Shown as the line's consumer (`gpioinfo`). */
  readonly consumer?: string;
}

export interface GpioOutput {
  readonly line: string | number;
  /** The level last written. */
  readonly level: boolean;
  write(high: boolean): void;
  /** Resolves when every write so far reached the hardware. */
  settled(): Promise<void>;
  release(): Promise<void>;
}

export interface GpioInput {
  readonly line: string | number;
  /** The last level seen. */
  readonly level: boolean;
  onChange(listener: (high: boolean) => void): void;
  release(): Promise<void>;
}
