/**
 * How the hardware under an I2C target behaves, so the software bus can predict a rig: FIFO
 * depths, clock stretching, how long after a write its answer is staged, and what a controller
 * reads from an empty transmit FIFO.
 */
export interface I2cHardwareProfile {
  readonly name: string;
  /** Bytes the target can have staged before a read starts (without stretching, the read limit). */
  readonly txFifo: number;
  /** Bytes of one write the target takes in (without stretching, the rest is lost). */
  readonly rxFifo: number;
  /** The target holds SCL low while it has nothing to send or no room, so FIFOs never run dry. */
  readonly clockStretch: boolean;
  /** Longest the target stretches the clock before giving up (ms). */
  readonly maxStretchMs: number;
  /** From the end of a query to its answer being staged (the backend's reaction time, ms). */
  readonly stagingLatencyMs: number;
  /** What an empty transmit FIFO clocks out: a fixed byte, or the last byte sent again. */
  readonly underrun: number | "repeat-last";
  /** Bus clock (Hz). */
  readonly busHz: number;
}

/** No limits: the protocol alone (unit tests, in-process hosts). */
export const IDEAL: I2cHardwareProfile = {
  name: "ideal",
  txFifo: Infinity,
  rxFifo: Infinity,
  clockStretch: true,
  maxStretchMs: Infinity,
  stagingLatencyMs: 0,
  underrun: 0xff,
  busHz: 100_000,
};

/**
 * The Raspberry Pi BSC peripheral through pigpiod (Pi 3/4/Zero 2 W): 16-byte FIFOs, no clock
 * stretching, answers staged by a polling daemon about a millisecond after the query. A read
 * longer than the FIFO underruns: SDA is released and the controller reads 0xff.
 */
export const BSC: I2cHardwareProfile = {
  name: "bsc",
  txFifo: 16,
  rxFifo: 16,
  clockStretch: false,
  maxStretchMs: 0,
  stagingLatencyMs: 1,
  underrun: 0xff,
  busHz: 100_000,
};

/**
 * An RP2040 bridge (any Pi, Pi 5 included): 16-byte hardware FIFOs, but the target stretches the
 * clock while it waits for the Pi, so Node's latency (a few ms over USB) costs time, not data.
 */
export const PICO: I2cHardwareProfile = {
  name: "pico",
  txFifo: 16,
  rxFifo: 16,
  clockStretch: true,
  maxStretchMs: 50, // BRIDGE_MAX_STRETCH_MS of the bridge firmware (hil/bridge/rp2040/bridge_core.h)
  stagingLatencyMs: 2,
  underrun: 0xff,
  busHz: 100_000,
};

export const I2C_PROFILES: Readonly<Record<string, I2cHardwareProfile>> = {
  ideal: IDEAL,
  bsc: BSC,
  pico: PICO,
};

/** Time a transaction of `bytes` data bytes takes on the wire: START, address, data, STOP (µs). */
export function i2cWireMicros(bytes: number, busHz: number): number {
  // 9 clocks per byte (8 bits + ACK), plus the address byte, plus START and STOP.
  return ((9 * (bytes + 1) + 2) * 1_000_000) / busHz;
}
