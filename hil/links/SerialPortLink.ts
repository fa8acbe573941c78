import { SerialPort } from "serialport";
import type { ByteLink } from "./ByteLink.js";

/** Parses `DEV[@BAUD]` (baud defaults to 9600, the module's UART rate). */
export function parseSerialSpec(spec: string): { path: string; baudRate: number } {
  const at = spec.lastIndexOf("@");
  if (at < 0) return { path: spec, baudRate: 9600 };
  const baudRate = Number(spec.slice(at + 1));
  if (!Number.isInteger(baudRate) || baudRate <= 0) throw new Error(`bad baud rate in "${spec}"`);
  return { path: spec.slice(0, at), baudRate };
}

/** A serial device (UART, USB CDC, pty) through serialport, as a byte link. */
export class SerialPortLink implements ByteLink {
  readonly #port: SerialPort;

  private constructor(port: SerialPort) {
    this.#port = port;
    // Modem-line ioctls fail on ptys ("Inappropriate ioctl for device"): not fatal for a link.
    port.on("error", () => undefined);
  }

  static open(spec: string): Promise<SerialPortLink> {
    const { path, baudRate } = parseSerialSpec(spec);
    return new Promise((resolve, reject) => {
      const port = new SerialPort({ path, baudRate, autoOpen: false });
      port.open((error) => (error ? reject(openFailure(path, error)) : resolve(new SerialPortLink(port))));
    });
  }

  write(bytes: Uint8Array): void {
    this.#port.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  onData(listener: (bytes: Uint8Array) => void): void {
    this.#port.on("data", listener);
  }

  onClose(listener: () => void): void {
    this.#port.on("close", listener);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#port.isOpen) return resolve();
      this.#port.close(() => resolve());
    });
  }
}

/** Why a device did not open, in words that say what to do. */
function openFailure(path: string, error: Error): Error {
  const text = error.message;
  if (/cannot lock port|resource temporarily unavailable/i.test(text))
    return new Error(`${path} is in use by another program (another cardsim, a terminal): stop it first`);
  if (/no such file or directory|ENOENT/i.test(text))
    return new Error(
      `there is no device ${path}: check its name (ls /dev/tty*; a USB adapter may have moved)`,
    );
  if (/permission denied|EACCES/i.test(text))
    return new Error(
      `no permission to open ${path}: join the dialout group (sudo usermod -aG dialout $USER) and log in again`,
    );
  return new Error(`cannot open ${path}: ${text}`);
}
