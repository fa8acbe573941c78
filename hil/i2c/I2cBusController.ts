import type { I2cController, I2cReadResult, I2cWriteResult } from "./I2cController.js";

/** The part of the `i2c-bus` package's promisified bus this adapter uses (plain I2C, not SMBus). */
export interface I2cBusLike {
  i2cWrite(address: number, length: number, buffer: Buffer): Promise<{ bytesWritten: number }>;
  i2cRead(address: number, length: number, buffer: Buffer): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** Errors the Linux I2C drivers give for a target that did not acknowledge. */
const NOT_ACKNOWLEDGED = new Set(["EREMOTEIO", "ENXIO", "EIO"]);

/**
 * An I2C controller on a Linux I2C bus (`/dev/i2c-N`) through the `i2c-bus` package: on a Pi,
 * I2C-1 (GPIO2 and GPIO3) playing the host in the rig's self-test. One transaction per call, as a
 * host's I2C peripheral does; a target that does not acknowledge is a result (acked: false), not
 * an error. `i2c-bus` is an optional dependency, loaded only here (only Linux builds it).
 */
export class I2cBusController implements I2cController {
  readonly #bus: I2cBusLike;

  constructor(bus: I2cBusLike) {
    this.#bus = bus;
  }

  /** Opens `/dev/i2c-<busNumber>`. */
  static async open(busNumber: number): Promise<I2cBusController> {
    let module: { openPromisified(bus: number): Promise<I2cBusLike> };
    try {
      // A variable specifier: the package is optional, and has no type declarations of its own.
      const name = "i2c-bus";
      const loaded = (await import(name)) as { default?: typeof module } & typeof module;
      module = loaded.default ?? loaded;
    } catch (error) {
      throw new Error(
        "the i2c-bus package is not installed (an optional dependency, built on Linux only): npm install i2c-bus",
        { cause: error },
      );
    }
    try {
      return new I2cBusController(await module.openPromisified(busNumber));
    } catch (error) {
      throw new Error(
        `cannot open /dev/i2c-${busNumber} (${(error as Error).message}): enable I2C (sudo raspi-config nonint do_i2c 0) and join the i2c group`,
        { cause: error },
      );
    }
  }

  async write(address: number, bytes: Uint8Array): Promise<I2cWriteResult> {
    const started = performance.now();
    try {
      const { bytesWritten } = await this.#bus.i2cWrite(address, bytes.length, Buffer.from(bytes));
      return { acked: true, sent: bytesWritten, micros: (performance.now() - started) * 1000 };
    } catch (error) {
      if (!NOT_ACKNOWLEDGED.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
      return { acked: false, nack: "address", sent: 0, micros: (performance.now() - started) * 1000 };
    }
  }

  async read(address: number, length: number): Promise<I2cReadResult> {
    const started = performance.now();
    const buffer = Buffer.alloc(length);
    try {
      const { bytesRead } = await this.#bus.i2cRead(address, length, buffer);
      const micros = (performance.now() - started) * 1000;
      return {
        acked: true,
        bytes: new Uint8Array(buffer.subarray(0, bytesRead)),
        underrun: 0,
        stretchedMs: 0,
        micros,
      };
    } catch (error) {
      if (!NOT_ACKNOWLEDGED.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
      const micros = (performance.now() - started) * 1000;
      return { acked: false, bytes: new Uint8Array(), underrun: 0, stretchedMs: 0, micros };
    }
  }

  close(): Promise<void> {
    return this.#bus.close();
  }
}
