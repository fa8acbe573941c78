import { SerialPort } from "serialport";
import { cobsDecode, cobsEncode } from "../../firmware/host/Cobs.js";
import { PICO, type I2cHardwareProfile } from "./I2cHardwareProfile.js";
import type { I2cTargetBackend, I2cTargetPort } from "./I2cTargetBackend.js";

const FRAME = {
  hello: 0x48,
  write: 0x57,
  read: 0x52,
  done: 0x44,
  address: 0x41,
  stage: 0x53,
  ping: 0x50,
} as const;
export const RP2040_BRIDGE_VERSION = 1;

export interface Rp2040BridgeOptions {
  /** The Pico's USB serial device (`/dev/ttyACM0`, `/dev/serial/by-id/...`). */
  readonly path: string;
  /** How long to wait for the bridge's hello (ms). */
  readonly helloTimeoutMs?: number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** What the bridge reported since attach. */
export interface Rp2040BridgeStats {
  writes: number;
  reads: number;
  /** Reads that waited for their answer with SCL stretched. */
  stretched: number;
  /** Reads that got filler (answer too late or too short). */
  underruns: number;
}

/**
 * The module's I2C target behind an RP2040 USB bridge (hil/bridge/rp2040): the Pico is the
 * target on the host's bus and sends each transaction here; every write is answered with the
 * bytes its next read must serve. The Pico stretches SCL while it waits, so any Pi (Pi 5 too) or
 * laptop keeps up with note-c's default timing.
 */
export class Rp2040BridgeBackend implements I2cTargetBackend {
  readonly kind = "rp2040-bridge" as const;
  readonly profile: I2cHardwareProfile = PICO;
  readonly stats: Rp2040BridgeStats = { writes: 0, reads: 0, stretched: 0, underruns: 0 };
  readonly #options: Rp2040BridgeOptions;
  #port: SerialPort | undefined;
  #target: I2cTargetPort | undefined;
  #frame: number[] = [];
  #onHello: ((address: number, version: number) => void) | undefined;

  constructor(options: Rp2040BridgeOptions) {
    this.#options = options;
  }

  async attach(target: I2cTargetPort): Promise<void> {
    if (this.#target) throw new Error("Rp2040BridgeBackend serves one target");
    const port = new SerialPort({ path: this.#options.path, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) =>
      port.open((error) =>
        error
          ? reject(new Error(`cannot open the RP2040 bridge at ${this.#options.path}: ${error.message}`))
          : resolve(),
      ),
    );
    this.#port = port;
    this.#target = target;
    port.on("data", (chunk: Buffer) => this.#receive(chunk));
    port.on("error", (error) => this.#options.log?.("RP2040 bridge error", { error: error.message }));
    const hello = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no answer from the RP2040 bridge at ${this.#options.path}: is cardsim_i2c_bridge.uf2 flashed?`,
            ),
          ),
        this.#options.helloTimeoutMs ?? 2000,
      );
      this.#onHello = (address, version) => {
        if (address !== target.address) return;
        clearTimeout(timer);
        if (version !== RP2040_BRIDGE_VERSION)
          return reject(
            new Error(`RP2040 bridge speaks protocol ${version}, cardsim speaks ${RP2040_BRIDGE_VERSION}`),
          );
        resolve();
      };
    });
    this.#send([FRAME.address, target.address]);
    await hello;
  }

  async close(): Promise<void> {
    const port = this.#port;
    this.#port = undefined;
    this.#target = undefined;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  #send(payload: number[] | Uint8Array): void {
    const encoded = cobsEncode(Uint8Array.from(payload), 0x00);
    const frame = new Uint8Array(encoded.length + 1);
    frame.set(encoded);
    this.#port?.write(frame);
  }

  #receive(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (byte !== 0) {
        this.#frame.push(byte);
        continue;
      }
      const raw = Uint8Array.from(this.#frame);
      this.#frame = [];
      if (raw.length === 0) continue;
      let frame: Uint8Array;
      try {
        frame = cobsDecode(raw, 0x00);
      } catch {
        this.#options.log?.("RP2040 bridge: garbled frame dropped", { length: raw.length });
        continue;
      }
      this.#handle(frame);
    }
  }

  #handle(frame: Uint8Array): void {
    const target = this.#target;
    if (!target || frame.length === 0) return;
    switch (frame[0]) {
      case FRAME.hello:
        this.#onHello?.(frame[2] ?? 0, frame[1] ?? 0);
        return;
      case FRAME.write: {
        const seq = frame[1]!;
        this.stats.writes++;
        target.write(frame.subarray(2));
        // Every write is answered, so a read after it never waits longer than this round trip.
        this.#send([FRAME.stage, seq, ...target.staged()]);
        return;
      }
      case FRAME.read:
        this.stats.stretched++;
        return;
      case FRAME.done: {
        this.stats.reads++;
        const served = (frame[2] ?? 0) | ((frame[3] ?? 0) << 8);
        if ((frame[4] ?? 0) & 0x01) this.stats.underruns++;
        target.readDone(served);
        return;
      }
    }
  }
}
