import type { I2cHardwareProfile } from "./I2cHardwareProfile.js";

/**
 * The module's end of a bus, as backends drive it (an `I2cTarget` is one): a write transaction
 * in, the staged answer out, then how much of it the controller read.
 */
export interface I2cTargetPort {
  readonly address: number;
  write(bytes: Uint8Array): void;
  staged(): Uint8Array;
  readDone(served: number): void;
}

/**
 * Puts an I2C target on a bus: the software bus in CI, the Pi's BSC peripheral through pigpiod,
 * or an RP2040 USB bridge. One interface, chosen per board.
 */
export interface I2cTargetBackend {
  readonly kind: "sim" | "pigpiod-bsc" | "rp2040-bridge";
  readonly profile: I2cHardwareProfile;
  /** Starts answering the bus at the target's address. */
  attach(target: I2cTargetPort): Promise<void>;
  close(): Promise<void>;
}
