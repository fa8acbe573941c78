/**
 * One line of a capture file (JSON lines): what crossed a link, or happened to it, and when.
 *
 * - `t`: milliseconds since the capture started, on the scenario's clock (virtual or real).
 * - `link`: which link (`serial.host`, `serial.module`, `i2c.module`, ...), `world` for scripted
 *   changes to the module's world, `capture` for the header line.
 * - `dir`: `h2m` (host to module), `m2h` (module to host), `w2m` (world to module), `meta`.
 * - `kind`: `bytes` (a serial chunk), `i2c-w` / `i2c-r` (one I2C write / read transaction),
 *   `overflow` (bytes the module's receive buffer lost), `impair` (what an impairment did),
 *   `event` (link up/down, host reset), `world` (a scripted change), `meta` (the header).
 * - `hex`: the bytes, lowercase hex ("" when none).
 * - `info`: optional details (impairment name, world action, header fields).
 */
export interface CaptureEntry {
  readonly t: number;
  readonly link: string;
  readonly dir: CaptureDirection;
  readonly kind: CaptureKind;
  readonly hex: string;
  readonly info?: Record<string, unknown>;
}

export type CaptureDirection = "h2m" | "m2h" | "w2m" | "meta";

export const CAPTURE_KINDS = [
  "bytes",
  "i2c-w",
  "i2c-r",
  "overflow",
  "impair",
  "event",
  "world",
  "meta",
] as const;
export type CaptureKind = (typeof CAPTURE_KINDS)[number];

export const CAPTURE_DIRECTIONS: readonly CaptureDirection[] = ["h2m", "m2h", "w2m", "meta"];

/** What a capture's header records, so that a replay can boot the same module. */
export interface CaptureMeta {
  /** Format version of the capture file. */
  readonly format: 1;
  /** Epoch ms of the clock when the capture started (t = 0). */
  readonly clockStart: number;
  /** Module boot options, when the module was simulated (absent for a module on a board). */
  readonly module?: {
    readonly seed: number | string;
    readonly variant: string;
    readonly timeKnown: boolean;
    /** The module ran on the power-loss flash (`Scenario.start({ flash })`). */
    readonly flash?: boolean | Record<string, unknown>;
  };
  readonly [key: string]: unknown;
}
