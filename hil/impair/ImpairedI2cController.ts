import { SeededRandom } from "../../core/SeededRandom.js";
import type { I2cController, I2cReadResult, I2cWriteResult } from "../i2c/I2cController.js";
import { i2cWireMicros } from "../i2c/I2cHardwareProfile.js";
import { SimI2cBus } from "../i2c/SimI2cBus.js";
import { ByteSelector, type ByteSelection } from "./ByteSelector.js";

/**
 * One I2C impairment, as plain JSON. Selections count transactions from 0: `nack` counts every
 * transaction, `truncate` counts reads, `late` counts queries (`[0][R]` writes).
 */
export type I2cImpairmentSpec =
  /** The module does not acknowledge its address (busy, rebooting), or stops acknowledging data after `afterBytes`. */
  | { readonly nack: ByteSelection & { readonly afterBytes?: number } }
  /** The controller stops a read after `bytes` bytes. */
  | { readonly truncate: ByteSelection & { readonly bytes: number } }
  /** The answer to a query is staged `ms` later than the hardware profile says (software bus only). */
  | { readonly late: ByteSelection & { readonly ms: number } };

/** What happened to one transaction, for captures. */
export interface I2cTransactionRecord {
  readonly dir: "h2m" | "m2h";
  readonly kind: "i2c-w" | "i2c-r";
  readonly bytes: Uint8Array;
  readonly info: Record<string, unknown>;
}

interface Built {
  readonly kind: "nack" | "truncate" | "late";
  readonly selector: ByteSelector;
  readonly spec: I2cImpairmentSpec;
}

/**
 * An I2C controller seen through impairments: NACKs, truncated reads, late staging, each
 * deterministic by transaction position or by seed. It sits between a host (emulated or a rig's
 * bus) and the bus, and reports every transaction on both sides of itself (for captures).
 */
export class ImpairedI2cController implements I2cController {
  readonly #bus: I2cController;
  readonly #impairments: Built[];
  readonly #onHost: (record: I2cTransactionRecord) => void;
  readonly #onBus: (record: I2cTransactionRecord) => void;
  readonly #onImpair: (what: string, info: Record<string, unknown>) => void;
  #transactions = 0;
  #reads = 0;
  #queries = 0;

  constructor(
    bus: I2cController,
    options: {
      impair?: readonly I2cImpairmentSpec[];
      seed?: number | string;
      /** The transaction as the host saw it. */
      onHost?: (record: I2cTransactionRecord) => void;
      /** The transaction as it reached the bus (after impairments). */
      onBus?: (record: I2cTransactionRecord) => void;
      onImpair?: (what: string, info: Record<string, unknown>) => void;
    } = {},
  ) {
    this.#bus = bus;
    this.#onHost = options.onHost ?? (() => undefined);
    this.#onBus = options.onBus ?? (() => undefined);
    this.#onImpair = options.onImpair ?? (() => undefined);
    this.#impairments = (options.impair ?? []).map((spec, index) => {
      const keys = Object.keys(spec);
      const kind = keys[0] as Built["kind"];
      if (keys.length !== 1 || !["nack", "truncate", "late"].includes(kind)) {
        throw new Error(`an I2C impairment is one of nack, truncate, late; got ${JSON.stringify(spec)}`);
      }
      const random = new SeededRandom(`${options.seed ?? 0}/i2c/${index}`);
      if (kind === "late" && !(bus instanceof SimI2cBus)) {
        throw new Error("late staging is a fault of the software I2C bus: it cannot be injected on hardware");
      }
      const sel = (spec as Record<string, ByteSelection>)[kind]!;
      if (
        kind === "truncate" &&
        !(Number.isInteger((sel as { bytes?: number }).bytes) && (sel as { bytes: number }).bytes >= 0)
      ) {
        throw new Error(`truncate needs bytes >= 0, got ${JSON.stringify(sel)}`);
      }
      if (kind === "late" && !((sel as { ms?: number }).ms! > 0))
        throw new Error(`late needs ms > 0, got ${JSON.stringify(sel)}`);
      return { kind, selector: new ByteSelector(sel, random), spec };
    });
  }

  #hits(kind: Built["kind"], position: number): Built | undefined {
    let hit: Built | undefined;
    for (const imp of this.#impairments)
      if (imp.kind === kind && imp.selector.hits(position) && !hit) hit = imp;
    return hit;
  }

  async write(address: number, bytes: Uint8Array): Promise<I2cWriteResult> {
    const index = this.#transactions++;
    const isQuery = bytes.length > 0 && bytes[0] === 0;
    const nack = this.#hits("nack", index);
    const late = isQuery ? this.#hits("late", this.#queries++) : undefined;
    let result: I2cWriteResult;
    if (nack) {
      const after = (nack.spec as { nack: { afterBytes?: number } }).nack.afterBytes;
      if (after === undefined || after >= bytes.length) {
        this.#onImpair("nack", { transaction: index, on: "address" });
        result = { acked: false, nack: "address", sent: 0, micros: i2cWireMicros(0, 100_000) };
      } else {
        this.#onImpair("nack", { transaction: index, on: "data", afterBytes: after });
        const partial = bytes.subarray(0, after);
        const taken = await this.#bus.write(address, partial);
        this.#onBus({ dir: "h2m", kind: "i2c-w", bytes: partial, info: { address, acked: taken.acked } });
        result = { acked: false, nack: "data", sent: after, micros: taken.micros };
      }
    } else {
      if (late) {
        const ms = (late.spec as { late: { ms: number } }).late.ms;
        this.#onImpair("late", { transaction: index, ms });
        (this.#bus as SimI2cBus).inject({ kind: "late-staging", ms });
      }
      result = await this.#bus.write(address, bytes);
      this.#onBus({
        dir: "h2m",
        kind: "i2c-w",
        bytes,
        info: {
          address,
          acked: result.acked,
          ...(late ? { lateMs: (late.spec as { late: { ms: number } }).late.ms } : {}),
        },
      });
    }
    this.#onHost({
      dir: "h2m",
      kind: "i2c-w",
      bytes,
      info: { address, acked: result.acked, ...(result.nack ? { nack: result.nack } : {}) },
    });
    return result;
  }

  async read(address: number, length: number): Promise<I2cReadResult> {
    const index = this.#transactions++;
    const nack = this.#hits("nack", index);
    const truncate = this.#hits("truncate", this.#reads++);
    let result: I2cReadResult;
    if (nack) {
      this.#onImpair("nack", { transaction: index, on: "address" });
      result = {
        acked: false,
        bytes: new Uint8Array(),
        underrun: 0,
        stretchedMs: 0,
        micros: i2cWireMicros(0, 100_000),
      };
    } else {
      const clocked = truncate
        ? Math.min(length, (truncate.spec as { truncate: { bytes: number } }).truncate.bytes)
        : length;
      if (truncate) this.#onImpair("truncate", { transaction: index, length, bytes: clocked });
      result = await this.#bus.read(address, clocked);
      this.#onBus({
        dir: "m2h",
        kind: "i2c-r",
        bytes: result.bytes,
        info: { address, length: clocked, acked: result.acked, underrun: result.underrun },
      });
    }
    this.#onHost({
      dir: "m2h",
      kind: "i2c-r",
      bytes: result.bytes,
      info: { address, length, acked: result.acked, underrun: result.underrun },
    });
    return result;
  }
}
