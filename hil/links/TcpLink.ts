import type { Socket } from "node:net";
import type { ByteLink } from "./ByteLink.js";

/** A TCP connection as a byte link. */
export class TcpLink implements ByteLink {
  readonly #socket: Socket;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    // A peer that vanishes mid-write must not take the process down; close is reported instead.
    socket.on("error", () => socket.destroy());
  }

  write(bytes: Uint8Array): void {
    if (!this.#socket.destroyed) this.#socket.write(bytes);
  }

  onData(listener: (bytes: Uint8Array) => void): void {
    this.#socket.on("data", listener);
  }

  onClose(listener: () => void): void {
    this.#socket.on("close", listener);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once("close", () => resolve());
      this.#socket.end();
      this.#socket.destroySoon?.();
    });
  }
}
