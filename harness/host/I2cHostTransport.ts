import type { Clock } from "../../core/Clock.js";
import { concatBytes } from "../../core/bytes.js";
import type { I2cController } from "../../hil/i2c/I2cController.js";
import { HostIoError, TransportAborted, type HostTransport } from "./HostTransport.js";
import type { NoteCTiming } from "./NoteCTiming.js";
import { sleep } from "../../core/Clock.js";

const encoder = new TextEncoder();
const NEWLINE = 0x0a;
/** Largest `available` a host accepts (note-arduino, note-go): 255 minus the 2-byte header. */
const AVAILABLE_MAX = 253;

/**
 * note-c's serial-over-I2C transport (`n_i2c.c`) with note-arduino's I2C hooks, over an I2C
 * controller (the software bus in CI; a rig's MCU does this itself):
 * - a request (with `\n`) goes in chunks of the MTU (30 by default), `[N][data]` each, 6 ms before
 *   every transaction, 20 ms after every chunk, and 250 ms more after every 250 bytes;
 * - a read is a `[0][R]` query write, a 2 ms gap, and an `R + 2`-byte read answered
 *   `[available][R][R bytes]`; a header that does not echo `R`, a short read, or `available`
 *   above 253 is an I/O error;
 * - after a request, `[0][0]` polls every 50 ms until something is available, then chunks are read
 *   until the last byte was `\n` and nothing more is available;
 * - a reset writes a lone `\n` (after a NACK: 1 s wait and again, 10 times), waits 250 ms, and
 *   drains for 500 ms; ready when only `\r`/`\n` came back.
 */
export class I2cHostTransport implements HostTransport {
  readonly kind = "i2c";
  readonly address: number;
  readonly #bus: I2cController;
  readonly #clock: Clock;
  readonly #timing: NoteCTiming;
  #epoch = 0;

  constructor(bus: I2cController, clock: Clock, timing: NoteCTiming, options: { address?: number } = {}) {
    if (!(timing.i2cMtu >= 1 && timing.i2cMtu <= AVAILABLE_MAX)) {
      throw new Error(`the I2C MTU is 1..253, got ${timing.i2cMtu}`);
    }
    this.#bus = bus;
    this.#clock = clock;
    this.#timing = timing;
    this.address = options.address ?? 0x17;
  }

  /** I2C output stays in the module until read: the host holds nothing unread. */
  get pending(): number {
    return 0;
  }

  discard(): void {
    this.#epoch++;
  }

  #check(epoch: number): void {
    if (epoch !== this.#epoch) throw new TransportAborted();
  }

  async #sleep(ms: number, epoch: number): Promise<void> {
    await sleep(this.#clock, ms);
    this.#check(epoch);
  }

  /** note-c's `_I2CTransmit` through note-arduino: one `[N][data]` write. */
  async #transmit(chunk: Uint8Array, epoch: number): Promise<void> {
    const frame = new Uint8Array(chunk.length + 1);
    frame[0] = chunk.length;
    frame.set(chunk, 1);
    const result = await this.#bus.write(this.address, frame);
    this.#check(epoch);
    if (!result.acked) {
      throw new HostIoError(
        result.nack === "address"
          ? "i2c: received NACK on transmit of address {io}"
          : "i2c: received NACK on transmit of data {io}",
      );
    }
  }

  /** note-c's `_I2CReceive` through note-arduino: `[0][R]`, a short gap, then `R + 2` bytes. */
  async #receive(requested: number, epoch: number): Promise<{ data: Uint8Array; available: number }> {
    const query = await this.#bus.write(this.address, Uint8Array.of(0, requested));
    this.#check(epoch);
    if (!query.acked) throw new HostIoError("i2c: received NACK on transmit of address {io}");
    await this.#sleep(this.#timing.i2cReadGapMs, epoch);
    const read = await this.#bus.read(this.address, requested + 2);
    this.#check(epoch);
    if (!read.acked) throw new HostIoError("i2c: received NACK on read of address {io}");
    if (read.bytes.length !== requested + 2) throw new HostIoError("i2c: too few bytes read {io}");
    if (read.bytes[1] !== requested) throw new HostIoError("i2c: unexpected protocol byte count {io}");
    const available = read.bytes[0]!;
    if (available > AVAILABLE_MAX)
      throw new HostIoError(`i2c: available too large (${available} > 253) {io}`);
    return { data: read.bytes.subarray(2), available };
  }

  async #send(bytes: Uint8Array, paced: boolean, epoch: number): Promise<void> {
    const t = this.#timing;
    let inSegment = 0;
    for (let offset = 0; offset < bytes.length; offset += t.i2cMtu) {
      const chunk = bytes.subarray(offset, offset + t.i2cMtu);
      await this.#sleep(t.i2cIoDelayMs, epoch);
      await this.#transmit(chunk, epoch);
      inSegment += chunk.length;
      if (inSegment > t.i2cSegmentBytes) {
        inSegment = 0;
        if (paced && t.paceSegments) await this.#sleep(t.i2cSegmentDelayMs, epoch);
      }
      if (paced && t.paceSegments) await this.#sleep(t.i2cChunkDelayMs, epoch);
    }
  }

  sendRequest(json: string): Promise<void> {
    const text = encoder.encode(json);
    const bytes = new Uint8Array(text.length + 1);
    bytes.set(text);
    bytes[text.length] = NEWLINE;
    return this.#send(bytes, true, this.#epoch);
  }

  sendRaw(bytes: Uint8Array): Promise<void> {
    // note-c sends binary with the same chunking but without its pauses.
    return this.#send(bytes, false, this.#epoch);
  }

  async receiveLine(firstByteTimeoutMs: number): Promise<Uint8Array> {
    const t = this.#timing;
    const epoch = this.#epoch;
    await this.#sleep(t.i2cIoDelayMs, epoch);
    // Poll until the module has something (note-c's i2cNoteQueryLength).
    const start = this.#clock.now();
    let available: number;
    for (;;) {
      ({ available } = await this.#receive(0, epoch));
      if (available > 0) break;
      if (this.#clock.now() - start >= firstByteTimeoutMs) {
        throw new HostIoError("timeout: no response from Notecard {io}");
      }
      await this.#sleep(t.i2cPollMs, epoch);
    }
    // Read until the last byte was a newline and nothing more is available.
    const parts: Uint8Array[] = [];
    let eop = false;
    let lastData = this.#clock.now();
    for (;;) {
      const requested = Math.min(available, t.i2cMtu);
      const got = await this.#receive(requested, epoch);
      if (requested > 0) {
        parts.push(got.data.slice());
        eop = got.data[requested - 1] === NEWLINE;
        lastData = this.#clock.now();
      }
      available = got.available;
      if (available > 0) continue;
      if (eop) break;
      if (this.#clock.now() - lastData >= t.intraTransactionTimeoutMs) {
        throw new HostIoError("timeout: transaction incomplete {io}");
      }
      await this.#sleep(t.i2cPollMs, epoch);
    }
    return concatBytes(parts);
  }

  async reset(): Promise<boolean> {
    const t = this.#timing;
    const epoch = this.#epoch;
    await this.#sleep(t.i2cSegmentDelayMs, epoch);
    for (let attempt = 0; attempt < t.resetSyncRetries; attempt++) {
      await this.#sleep(t.i2cIoDelayMs, epoch);
      try {
        await this.#transmit(Uint8Array.of(NEWLINE), epoch);
      } catch (error) {
        if (!(error instanceof HostIoError)) throw error;
        // Nobody acknowledged: no module yet (booting, absent). Wait and try again.
        await this.#sleep(t.i2cNackWaitMs, epoch);
        continue;
      }
      await this.#sleep(t.i2cSegmentDelayMs, epoch);
      let somethingFound = false;
      let nonControl = false;
      const end = this.#clock.now() + t.resetDrainMs;
      let available = 0;
      while (this.#clock.now() < end) {
        await this.#sleep(t.i2cIoDelayMs, epoch);
        let got: { data: Uint8Array; available: number };
        try {
          got = await this.#receive(Math.min(available, t.i2cMtu), epoch);
        } catch (error) {
          if (!(error instanceof HostIoError)) throw error;
          nonControl = true;
          await this.#sleep(t.i2cSegmentDelayMs, epoch);
          continue;
        }
        for (const b of got.data) {
          somethingFound = true;
          if (b !== 0x0a && b !== 0x0d) nonControl = true;
        }
        available = got.available;
        await this.#sleep(available > 0 ? t.i2cChunkDelayMs : t.i2cPollMs, epoch);
      }
      if (somethingFound && !nonControl) return true;
    }
    return false;
  }
}
