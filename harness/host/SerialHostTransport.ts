import type { Clock, TimerHandle } from "../../core/Clock.js";
import { concatBytes } from "../../core/bytes.js";
import type { ByteLink } from "../../hil/links/ByteLink.js";
import { ByteQueue } from "./ByteQueue.js";
import { HostIoError, TransportAborted, type HostTransport } from "./HostTransport.js";
import type { NoteCTiming } from "./NoteCTiming.js";
import { sleep } from "../../core/Clock.js";

export interface SerialHostTransportOptions {
  /**
   * The host UART's line rate. With it, writes block like an MCU's serial driver: a write
   * returns once all but `txBufferBytes` of what was written have left on the wire.
   */
  readonly txBaud?: number;
  /** The host driver's transmit buffer (default 64, Arduino's HardwareSerial). */
  readonly txBufferBytes?: number;
}

const encoder = new TextEncoder();
const NEWLINE = Uint8Array.of(0x0a);
const CRLF = Uint8Array.of(0x0d, 0x0a);

/** note-c's serial transport (`n_serial.c`) over a byte link, on a clock. */
export class SerialHostTransport implements HostTransport {
  readonly kind = "serial";
  readonly #clock: Clock;
  readonly #timing: NoteCTiming;
  readonly #rx = new ByteQueue();
  readonly #byteMs: number | undefined;
  readonly #txBuffer: number;
  #link!: ByteLink;
  #wake: (() => void) | undefined;
  #wireFreeAt = 0;
  #closed = false;
  #epoch = 0;

  constructor(link: ByteLink, clock: Clock, timing: NoteCTiming, options: SerialHostTransportOptions = {}) {
    this.#clock = clock;
    this.#timing = timing;
    this.#byteMs = options.txBaud ? 10_000 / options.txBaud : undefined;
    this.#txBuffer = options.txBufferBytes ?? 64;
    this.attach(link);
  }

  /** Uses a new link from now on (the host reopened its port after the cable came back). */
  attach(link: ByteLink): void {
    this.#link = link;
    this.#closed = false;
    link.onData((bytes) => {
      if (this.#link !== link) return;
      this.#rx.push(bytes);
      this.#notify();
    });
    link.onClose(() => {
      if (this.#link !== link) return;
      this.#closed = true;
      this.#notify();
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Waits until bytes are available, the port closes, or `ms` pass; true when bytes are there. */
  #waitForData(ms: number): Promise<boolean> {
    if (this.#rx.length > 0) return Promise.resolve(true);
    if (this.#closed || ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined = undefined;
      this.#wake = () => {
        if (timer !== undefined) this.#clock.clearTimer(timer);
        resolve(this.#rx.length > 0);
      };
      timer = this.#clock.setTimer(() => {
        this.#wake = undefined;
        resolve(this.#rx.length > 0);
      }, ms);
    });
  }

  /** Throws if `discard()` was called since `epoch` (the MCU restarted mid-operation). */
  #check(epoch: number): void {
    if (epoch !== this.#epoch) throw new TransportAborted();
  }

  async #write(bytes: Uint8Array, epoch: number): Promise<void> {
    this.#check(epoch);
    if (this.#closed) throw new HostIoError("serial port closed {io}");
    this.#link.write(bytes);
    if (this.#byteMs === undefined) return;
    const now = this.#clock.now();
    this.#wireFreeAt = Math.max(now, this.#wireFreeAt) + bytes.length * this.#byteMs;
    const returnsAt = this.#wireFreeAt - this.#txBuffer * this.#byteMs;
    if (returnsAt > now) await sleep(this.#clock, Math.ceil(returnsAt - now));
    this.#check(epoch);
  }

  async reset(): Promise<boolean> {
    const t = this.#timing;
    const epoch = this.#epoch;
    await sleep(this.#clock, t.serialSegmentDelayMs);
    this.#check(epoch);
    this.#rx.clear();
    for (let attempt = 0; attempt < t.resetSyncRetries; attempt++) {
      if (this.#closed) return false;
      // Always a bare \n: some module firmware ignores \r\n after I2C use (note-c PR 87).
      await this.#write(NEWLINE, epoch);
      let somethingFound = false;
      let nonControl = false;
      const end = this.#clock.now() + t.resetDrainMs;
      while (this.#clock.now() < end) {
        if (!(await this.#waitForData(end - this.#clock.now()))) {
          if (this.#closed) break;
          continue;
        }
        for (const b of this.#rx.take(this.#rx.length)) {
          somethingFound = true;
          if (b !== 0x0a && b !== 0x0d) nonControl = true;
        }
      }
      this.#check(epoch);
      if (somethingFound && !nonControl) return true;
      await sleep(this.#clock, t.resetDrainMs);
    }
    return false;
  }

  async sendRequest(json: string): Promise<void> {
    const bytes = encoder.encode(json);
    const t = this.#timing;
    const epoch = this.#epoch;
    const segment = t.paceSegments ? t.serialSegmentBytes : Math.max(1, bytes.length);
    for (let offset = 0; offset < bytes.length; offset += segment) {
      await this.#write(bytes.subarray(offset, offset + segment), epoch);
      if (offset + segment < bytes.length && t.paceSegments) await sleep(this.#clock, t.serialSegmentDelayMs);
    }
    await this.#write(CRLF, epoch);
  }

  async sendRaw(bytes: Uint8Array): Promise<void> {
    const segment = this.#timing.serialSegmentBytes;
    const epoch = this.#epoch;
    for (let offset = 0; offset < bytes.length; offset += segment) {
      await this.#write(bytes.subarray(offset, offset + segment), epoch);
    }
  }

  async receiveLine(firstByteTimeoutMs: number): Promise<Uint8Array> {
    const t = this.#timing;
    const epoch = this.#epoch;
    // note-c polls for the first byte every few ms, then reads greedily.
    const start = this.#clock.now();
    while (this.#rx.length === 0) {
      const left = start + firstByteTimeoutMs - this.#clock.now();
      if (left <= 0 || this.#closed) throw new HostIoError("transaction timeout {io}");
      await sleep(this.#clock, Math.min(t.serialPollMs, left));
      this.#check(epoch);
    }
    const parts: Uint8Array[] = [];
    for (;;) {
      const nl = this.#rx.indexOf(0x0a);
      if (nl >= 0) {
        parts.push(this.#rx.take(nl + 1));
        break;
      }
      parts.push(this.#rx.take(this.#rx.length));
      const more = await this.#waitForData(t.intraTransactionTimeoutMs);
      this.#check(epoch);
      if (!more) throw new HostIoError("timeout: transaction incomplete {io}");
    }
    return concatBytes(parts);
  }

  get pending(): number {
    return this.#rx.length;
  }

  discard(): void {
    this.#epoch++;
    this.#rx.clear();
  }
}
