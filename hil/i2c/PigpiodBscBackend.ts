import type { Clock, TimerHandle } from "../../core/Clock.js";
import { BSC, type I2cHardwareProfile } from "./I2cHardwareProfile.js";
import type { I2cTargetBackend, I2cTargetPort } from "./I2cTargetBackend.js";
import { PIGPIOD_CMD, PigpiodClient } from "./PigpiodClient.js";

/** BSC control bits (pigpio `bscXfer`): enable, I2C mode, transmit and receive enabled. */
const BSC_I2C_ENABLE = 0x305;
/** Break: stop and clear the FIFOs. */
const BSC_BREAK = 0x80;
export const BSC_FIFO_SIZE = 16;

/** Fields of the status word `bscXfer` returns. */
export function bscStatus(word: number) {
  return {
    copiedToTx: (word >>> 16) & 0x1f,
    rxCount: (word >>> 11) & 0x1f,
    txCount: (word >>> 6) & 0x1f,
    receiveBusy: (word & 0x20) !== 0,
    txEmpty: (word & 0x10) !== 0,
  };
}

export interface PigpiodBscOptions {
  readonly host?: string;
  readonly port?: number;
  /** How often the daemon is asked for received bytes (ms); the staging latency of the rig. */
  readonly pollMs?: number;
  /** Paces the polls (the system clock in production). */
  readonly clock: Clock;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * The Raspberry Pi's BSC peripheral as the module's I2C target, through pigpiod's BSCX command
 * (Pi 3/4/Zero 2 W; pigpio does not run on a Pi 5). The daemon is polled: each poll hands it
 * bytes for the transmit FIFO and returns what the receive FIFO got. Controller writes are cut
 * out of that byte stream by their own length byte (`[N][data]`, `[0][R]`); a partial write that
 * stays partial for a whole poll is delivered as it is (malformed). Limits: 16-byte FIFOs and no
 * clock stretching, so hosts must use an I2C MTU of 14 or less and wait >= 2 ms between a query
 * and its read (docs/i2c.md).
 */
export class PigpiodBscBackend implements I2cTargetBackend {
  readonly kind = "pigpiod-bsc" as const;
  readonly profile: I2cHardwareProfile;
  readonly #options: PigpiodBscOptions;
  readonly #clock: Clock;
  #client: PigpiodClient | undefined;
  #target: I2cTargetPort | undefined;
  #control = 0;
  #timer: TimerHandle | undefined;
  #inbound: number[] = [];
  #staleInbound = false;
  /** Answer bytes not yet handed to the daemon, and how many were handed over in all. */
  #outbound: Uint8Array = new Uint8Array();
  #stagedCount = 0;
  #awaitingRead = false;
  #clearTx = false;
  #polling: Promise<void> | undefined;
  #stopped = false;

  constructor(options: PigpiodBscOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.profile = { ...BSC, stagingLatencyMs: options.pollMs ?? 1 };
  }

  async attach(target: I2cTargetPort): Promise<void> {
    if (this.#target) throw new Error("PigpiodBscBackend serves one target");
    this.#client = await PigpiodClient.connect(this.#options.host, this.#options.port);
    this.#target = target;
    this.#control = ((target.address & 0x7f) << 16) | BSC_I2C_ENABLE;
    const first = await this.#client.command(PIGPIOD_CMD.BSCX, this.#control | BSC_BREAK);
    if (first.res < 0)
      throw new Error(`pigpiod refused BSCX (error ${first.res}); pigpiod must run as root on a Pi 3/4/Zero`);
    await this.#xfer(new Uint8Array());
    this.#schedule();
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) this.#clock.clearTimer(this.#timer);
    await this.#polling?.catch(() => undefined);
    if (this.#client) {
      // Control 0 turns the peripheral off and returns its pins to inputs.
      await this.#client.command(PIGPIOD_CMD.BSCX, 0).catch(() => undefined);
      await this.#client.close();
    }
    this.#client = undefined;
    this.#target = undefined;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimer(() => {
      this.#polling = this.#poll().then(
        () => this.#schedule(),
        (error: Error) => this.#options.log?.("BSC poll failed", { error: error.message }),
      );
    }, this.#options.pollMs ?? 1);
  }

  async #poll(): Promise<void> {
    const room = this.#outbound.length > 0 ? this.#outbound.subarray(0, BSC_FIFO_SIZE) : new Uint8Array();
    await this.#xfer(room);
  }

  async #xfer(tx: Uint8Array): Promise<void> {
    if (this.#clearTx) {
      // Break empties both FIFOs: a stale answer must not be served. The host is waiting for its
      // answer at this point, so nothing it wrote is lost.
      this.#clearTx = false;
      await this.#client!.command(PIGPIOD_CMD.BSCX, this.#control | BSC_BREAK);
    }
    const reply = await this.#client!.command(PIGPIOD_CMD.BSCX, this.#control, 0, tx);
    if (reply.res < 4) throw new Error(`BSCX failed (${reply.res})`);
    const view = new DataView(reply.ext.buffer, reply.ext.byteOffset, reply.ext.length);
    const status = bscStatus(view.getUint32(0, true));
    if (status.copiedToTx > 0) {
      this.#outbound = this.#outbound.subarray(status.copiedToTx);
      this.#stagedCount += status.copiedToTx;
    }
    const received = reply.ext.subarray(4);
    if (received.length > 0) {
      this.#inbound.push(...received);
      this.#staleInbound = false;
    } else if (this.#inbound.length > 0 && this.#staleInbound) {
      // A write that never completed: give the target what came.
      this.#deliver(this.#inbound.length);
    } else {
      this.#staleInbound = this.#inbound.length > 0;
    }
    // The controller has read everything staged (before any query that came with this poll).
    if (this.#awaitingRead && this.#outbound.length === 0 && status.txCount === 0 && this.#stagedCount > 0) {
      this.#target!.readDone(this.#stagedCount);
      this.#awaitingRead = false;
      this.#stagedCount = 0;
    }
    this.#parse();
  }

  #parse(): void {
    for (;;) {
      if (this.#inbound.length === 0) return;
      const n = this.#inbound[0]!;
      const size = n === 0 ? 2 : n + 1;
      if (this.#inbound.length < size) return;
      this.#deliver(size);
    }
  }

  #deliver(size: number): void {
    const bytes = Uint8Array.from(this.#inbound.splice(0, size));
    this.#staleInbound = false;
    const target = this.#target!;
    const query = bytes[0] === 0;
    // A new query while an answer is still unread: that answer is abandoned (cleared below).
    if (query && this.#awaitingRead) target.readDone(0);
    target.write(bytes);
    if (query) {
      this.#outbound = target.staged().slice();
      this.#stagedCount = 0;
      this.#awaitingRead = true;
      this.#clearTx = true;
    }
  }
}
