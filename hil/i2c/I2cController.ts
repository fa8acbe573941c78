/**
 * The host's side of an I2C bus (what an MCU's I2C peripheral does): one call per transaction.
 * The software bus implements it for CI; on a rig the real MCU plays this part.
 */
export interface I2cController {
  write(address: number, bytes: Uint8Array): Promise<I2cWriteResult>;
  read(address: number, length: number): Promise<I2cReadResult>;
}

export interface I2cWriteResult {
  /** Every byte was acknowledged. */
  readonly acked: boolean;
  /** Where the target refused: its address, or a data byte. */
  readonly nack?: "address" | "data";
  /** Data bytes the target took. */
  readonly sent: number;
  /** Time on the wire (µs). */
  readonly micros: number;
}

export interface I2cReadResult {
  /** The address was acknowledged (false: `bytes` is empty). */
  readonly acked: boolean;
  readonly bytes: Uint8Array;
  /** Bytes that came from an empty transmit FIFO (filler, not data). */
  readonly underrun: number;
  /** How long the target held the clock (ms). */
  readonly stretchedMs: number;
  readonly micros: number;
}
