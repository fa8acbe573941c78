/**
 * A byte-stream link between a host and a module (UART, USB CDC, TCP, pty, in-memory pair).
 * Adapters to libraries stay thin and implement only this.
 */
export interface ByteLink {
  /** Sends bytes to the peer. */
  write(bytes: Uint8Array): void;
  /** Bytes from the peer, in order, in whatever chunks the transport delivers. */
  onData(listener: (bytes: Uint8Array) => void): void;
  /** The transport went away (peer closed, device unplugged). */
  onClose(listener: () => void): void;
  close(): Promise<void>;
}
