/** An I/O failure on the host's side, with note-c's text (hosts retry on `{io}`). */
export class HostIoError extends Error {}

/** What a transport throws from a send or receive that `discard()` interrupted. */
export class TransportAborted extends Error {
  constructor() {
    super("the transport was reset");
  }
}

/**
 * How a host library moves bytes to and from the module: serial or I2C, each with note-c's
 * framing and pacing. The transaction logic above it (CRC, retries, resets) is the same for both.
 */
export interface HostTransport {
  /** Which transport, for traces. */
  readonly kind: "serial" | "i2c";
  /** Resynchronizes with the module; true when it answered with only newlines. */
  reset(): Promise<boolean>;
  /** Sends a request (without terminator) and its terminator, paced like note-c. */
  sendRequest(json: string): Promise<void>;
  /** Sends raw bytes (binary data) with no pauses between segments. */
  sendRaw(bytes: Uint8Array): Promise<void>;
  /**
   * Receives one line through its `\n`: waits up to `firstByteTimeoutMs` for it to start, then
   * at most the intra-transaction timeout between bytes. Throws HostIoError on timeout.
   */
  receiveLine(firstByteTimeoutMs: number): Promise<Uint8Array>;
  /** Bytes received from the module and not read yet. */
  readonly pending: number;
  /**
   * Forgets anything received but not read, and stops a send or receive in progress (which
   * throws TransportAborted): the host MCU restarted.
   */
  discard(): void;
}
