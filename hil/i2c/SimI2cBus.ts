import type { Clock } from "../../core/Clock.js";
import type { I2cController, I2cReadResult, I2cWriteResult } from "./I2cController.js";
import { i2cWireMicros, IDEAL, type I2cHardwareProfile } from "./I2cHardwareProfile.js";
import type { I2cTargetBackend, I2cTargetPort } from "./I2cTargetBackend.js";

/** Faults injected on demand; each applies to the next `count` (default 1) matching transactions. */
export type I2cFault =
  /** The target does not acknowledge its address (busy, absent, rebooting). */
  | { readonly kind: "nack-address"; readonly count?: number }
  /** The target acknowledges `afterBytes` data bytes of a write, then NACKs the rest. */
  | { readonly kind: "nack-data"; readonly afterBytes: number; readonly count?: number }
  /** The answer to a query is staged `ms` later than the profile says. */
  | { readonly kind: "late-staging"; readonly ms: number; readonly count?: number }
  /** The controller stops a read after `bytes` bytes. */
  | { readonly kind: "truncate-read"; readonly bytes: number; readonly count?: number };

interface Attached {
  target: I2cTargetPort;
  /** Clock time at which the staged answer is really in the FIFO. */
  readyAt: number;
  lastByte: number;
}

/**
 * A software I2C bus for CI: a controller API for hosts and a backend for targets, with a
 * hardware profile (`ideal`, `bsc`, `pico`) deciding what the real rig would do with FIFO
 * limits, staging latency and clock stretching, on the injected clock. Faults are deterministic.
 */
export class SimI2cBus implements I2cController, I2cTargetBackend {
  readonly kind = "sim" as const;
  readonly profile: I2cHardwareProfile;
  readonly #clock: Clock;
  readonly #targets = new Map<number, Attached>();
  #faults: { fault: I2cFault; left: number }[] = [];

  constructor(options: { clock: Clock; profile?: I2cHardwareProfile }) {
    this.#clock = options.clock;
    this.profile = options.profile ?? IDEAL;
  }

  async attach(target: I2cTargetPort): Promise<void> {
    if (this.#targets.has(target.address))
      throw new Error(`I2C address 0x${target.address.toString(16)} already has a target`);
    this.#targets.set(target.address, { target, readyAt: 0, lastByte: 0xff });
  }

  async close(): Promise<void> {
    this.#targets.clear();
  }

  inject(fault: I2cFault): void {
    this.#faults.push({ fault, left: fault.count ?? 1 });
  }

  /** Faults not yet used up. */
  get pendingFaults(): readonly I2cFault[] {
    return this.#faults.map((f) => f.fault);
  }

  #take<K extends I2cFault["kind"]>(kind: K): Extract<I2cFault, { kind: K }> | undefined {
    const entry = this.#faults.find((f) => f.fault.kind === kind);
    if (!entry) return undefined;
    if (--entry.left <= 0) this.#faults.splice(this.#faults.indexOf(entry), 1);
    return entry.fault as Extract<I2cFault, { kind: K }>;
  }

  async write(address: number, bytes: Uint8Array): Promise<I2cWriteResult> {
    const attached = this.#targets.get(address);
    if (!attached || this.#take("nack-address"))
      return { acked: false, nack: "address", sent: 0, micros: i2cWireMicros(0, this.profile.busHz) };
    let sent = bytes.length;
    let nack: "data" | undefined;
    const nackData = this.#take("nack-data");
    if (nackData && nackData.afterBytes < sent) {
      sent = nackData.afterBytes;
      nack = "data";
    }
    // Without stretching, what the receive FIFO cannot hold is lost (acknowledged, then dropped).
    const taken = this.profile.clockStretch ? sent : Math.min(sent, this.profile.rxFifo);
    attached.target.write(bytes.subarray(0, taken));
    if (bytes[0] === 0) {
      const late = this.#take("late-staging")?.ms ?? 0;
      attached.readyAt = this.#clock.now() + this.profile.stagingLatencyMs + late;
    }
    return {
      acked: nack === undefined,
      ...(nack ? { nack } : {}),
      sent,
      micros: i2cWireMicros(sent, this.profile.busHz),
    };
  }

  async read(address: number, length: number): Promise<I2cReadResult> {
    const attached = this.#targets.get(address);
    if (!attached || this.#take("nack-address"))
      return {
        acked: false,
        bytes: new Uint8Array(),
        underrun: 0,
        stretchedMs: 0,
        micros: i2cWireMicros(0, this.profile.busHz),
      };
    const truncate = this.#take("truncate-read");
    const clocked = truncate ? Math.min(truncate.bytes, length) : length;
    const p = this.profile;
    const wait = Math.max(0, attached.readyAt - this.#clock.now());
    let stretchedMs = 0;
    let staged: Uint8Array;
    if (wait === 0 || (p.clockStretch && wait <= p.maxStretchMs)) {
      stretchedMs = wait;
      staged = attached.target.staged();
    } else {
      // Read before the answer reached the FIFO: the controller gets filler, and the answer
      // stays in the FIFO for whoever reads next, as on the hardware.
      staged = new Uint8Array();
    }
    const limit = p.clockStretch ? Infinity : p.txFifo;
    const usable = Math.min(staged.length, limit, clocked);
    const out = new Uint8Array(clocked);
    out.set(staged.subarray(0, usable));
    for (let i = usable; i < clocked; i++) {
      out[i] = p.underrun === "repeat-last" ? (i > 0 ? out[i - 1]! : attached.lastByte) : p.underrun;
    }
    if (clocked > 0) attached.lastByte = out[clocked - 1]!;
    if (wait === 0 || (p.clockStretch && wait <= p.maxStretchMs)) attached.target.readDone(usable);
    return {
      acked: true,
      bytes: out,
      underrun: clocked - usable,
      stretchedMs,
      micros: i2cWireMicros(clocked, p.busHz) + stretchedMs * 1000,
    };
  }
}
