import { existsSync } from "node:fs";
import type { LineHandler } from "../../firmware/host/SerialSession.js";
import type { ByteLink } from "./ByteLink.js";
import { parseSerialSpec, SerialPortLink } from "./SerialPortLink.js";
import { SimUart, type SimUartOptions } from "./SimUart.js";

export interface SerialDeviceServerOptions extends Omit<SimUartOptions, "name"> {
  /** How often to try to open the device again after it went away (default 1000 ms). */
  readonly retryMs?: number;
  /** Opens the device (tests inject a fake; default serialport). */
  readonly open?: (spec: string) => Promise<ByteLink>;
  /**
   * Also takes the device as gone once its path no longer exists, should its driver not say so
   * (default: with the default opener; an injected one may name no real path).
   */
  readonly watchPath?: boolean;
  /** Told when the device comes and goes. */
  readonly onStatus?: (status: { open: boolean; error?: string }) => void;
}

/**
 * Serves a module on a serial device (`/dev/ttyAMA0@9600`, USB gadget `/dev/ttyGS0`, a USB
 * adapter) for as long as it runs: the module's UART model sits on the device, and when the device
 * goes away (adapter unplugged, gadget unbound) it is opened again as soon as it is back, as a
 * module stays on its pins across a host's resets.
 */
export class SerialDeviceServer {
  readonly spec: string;
  readonly path: string;
  readonly baudRate: number;
  readonly #handler: LineHandler;
  readonly #options: SerialDeviceServerOptions;
  readonly #open: (spec: string) => Promise<ByteLink>;
  #uart: SimUart | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #opens = 0;

  private constructor(handler: LineHandler, spec: string, options: SerialDeviceServerOptions) {
    this.spec = spec;
    const parsed = parseSerialSpec(spec);
    this.path = parsed.path;
    this.baudRate = parsed.baudRate;
    this.#handler = handler;
    this.#options = options;
    this.#open = options.open ?? ((s) => SerialPortLink.open(s));
  }

  /** Opens the device (failing if it cannot be opened now) and serves it from then on. */
  static async start(
    handler: LineHandler,
    spec: string,
    options: SerialDeviceServerOptions,
  ): Promise<SerialDeviceServer> {
    const server = new SerialDeviceServer(handler, spec, options);
    await server.#connect();
    return server;
  }

  /** True while the device is open. */
  get open(): boolean {
    return this.#uart !== undefined;
  }

  /** How many times the device was opened. */
  get opens(): number {
    return this.#opens;
  }

  /** The module's UART on the device while it is open. */
  get uart(): SimUart | undefined {
    return this.#uart;
  }

  async #connect(): Promise<void> {
    const link = await this.#open(this.spec);
    if (this.#closed) {
      await link.close();
      return;
    }
    this.#opens++;
    const uart = SimUart.attach(this.#handler, link, { ...this.#options, name: "serial" });
    this.#uart = uart;
    this.#options.onStatus?.({ open: true });
    const gone = () => {
      if (watch) clearInterval(watch);
      if (this.#uart !== uart) return;
      this.#uart = undefined;
      if (this.#closed) return;
      this.#options.onStatus?.({ open: false, error: "device closed" });
      this.#scheduleRetry();
    };
    // A device whose node is gone is gone, whether or not its driver told the open file (a
    // pty's hang-up can go unnoticed on a loaded machine): checked as often as a retry.
    const watch = !(this.#options.watchPath ?? !this.#options.open)
      ? undefined
      : setInterval(() => {
          if (existsSync(this.path)) return;
          gone();
          void uart.close().catch(() => undefined);
        }, this.#options.retryMs ?? 1000);
    watch?.unref();
    link.onClose(gone);
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      // Still gone: already said when it went (statuses are its comings and goings).
      this.#connect().catch(() => this.#scheduleRetry());
    }, this.#options.retryMs ?? 1000);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    const uart = this.#uart;
    this.#uart = undefined;
    await uart?.close();
  }
}
