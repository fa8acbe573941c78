/**
 * GPIO lines at the edge, behind one small interface: the Linux GPIO character device (through
 * the gpiod tools) on a rig, a simulated chip in tests. Lines are named by the chip's line name
 * (`GPIO17` on a Raspberry Pi) or by offset. HIGH is `true` (physical level: no active-low here).
 */
export interface GpioChip {
  /** Claims a line as an output, driven to `initial` at once. */
  output(line: string | number, options?: GpioLineOptions & { initial?: boolean }): Promise<GpioOutput>;
  /** Claims a line as an input and watches both edges. */
  input(line: string | number, options?: GpioLineOptions & { bias?: GpioBias }): Promise<GpioInput>;
  /** Releases every line claimed through this chip. */
  close(): Promise<void>;
}

export type GpioBias = "as-is" | "pull-up" | "pull-down" | "disabled";

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
