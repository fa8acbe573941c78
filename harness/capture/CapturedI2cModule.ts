import type { I2cController, I2cReadResult, I2cWriteResult } from "../../hil/i2c/I2cController.js";
import { i2cWireMicros } from "../../hil/i2c/I2cHardwareProfile.js";
import type { CaptureEntry } from "../../hil/capture/CaptureEntry.js";
import { fromHex, toHex } from "../../hil/capture/LinkCapture.js";
import { lineDifferences, type LineDifference } from "./lineDiff.js";
import type { ParsedCapture } from "./parseCapture.js";

/**
 * A scripted I2C module that answers a host under test with what the captured host got: each
 * write is acknowledged (or not) as it was, each read returns the captured bytes. The host drives
 * the timing. `compare()` says whether the host's transactions were the captured host's.
 */
export class CapturedI2cModule implements I2cController {
  readonly #script: CaptureEntry[];
  readonly #expected: string[];
  readonly #actual: string[] = [];
  #next = 0;

  constructor(capture: ParsedCapture, options: { link?: string } = {}) {
    const link = options.link ?? "i2c.host";
    this.#script = capture.entries.filter(
      (e) => e.link === link && (e.kind === "i2c-w" || e.kind === "i2c-r"),
    );
    if (this.#script.length === 0) throw new Error(`the capture has no I2C transactions on ${link}`);
    this.#expected = this.#script.map(describe);
  }

  /** Captured transactions not yet replayed. */
  get remaining(): number {
    return this.#script.length - this.#next;
  }

  async write(address: number, bytes: Uint8Array): Promise<I2cWriteResult> {
    this.#actual.push(`w ${address} ${toHex(bytes)}`);
    const entry = this.#script[this.#next++];
    if (!entry || entry.kind !== "i2c-w")
      return { acked: false, nack: "address", sent: 0, micros: i2cWireMicros(0, 100_000) };
    const acked = entry.info?.["acked"] !== false;
    const nack =
      entry.info?.["nack"] === "data" ? "data" : entry.info?.["nack"] === "address" ? "address" : undefined;
    return {
      acked,
      ...(nack ? { nack } : {}),
      sent: acked ? bytes.length : 0,
      micros: i2cWireMicros(bytes.length, 100_000),
    };
  }

  async read(address: number, length: number): Promise<I2cReadResult> {
    this.#actual.push(`r ${address} ${length}`);
    const entry = this.#script[this.#next++];
    if (!entry || entry.kind !== "i2c-r") {
      return {
        acked: false,
        bytes: new Uint8Array(),
        underrun: 0,
        stretchedMs: 0,
        micros: i2cWireMicros(0, 100_000),
      };
    }
    const bytes = fromHex(entry.hex);
    return {
      acked: entry.info?.["acked"] !== false,
      bytes,
      underrun: typeof entry.info?.["underrun"] === "number" ? entry.info["underrun"] : 0,
      stretchedMs: 0,
      micros: i2cWireMicros(bytes.length, 100_000),
    };
  }

  /** The host's transactions against the captured host's (writes with their bytes, reads with their length). */
  compare(): { same: boolean; differences: readonly LineDifference[] } {
    const differences = lineDifferences(this.#expected, this.#actual);
    return { same: differences.length === 0, differences };
  }
}

function describe(entry: CaptureEntry): string {
  const address = entry.info?.["address"];
  if (entry.kind === "i2c-w") return `w ${String(address)} ${entry.hex}`;
  return `r ${String(address)} ${String(entry.info?.["length"])}`;
}
