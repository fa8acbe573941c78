import { LineFramer } from "./LineFramer.js";
import type { LineReply } from "./LineReply.js";
import type { LineHandler } from "./SerialSession.js";
import { DEFAULT_MAX_LINE_BYTES } from "./SerialSession.js";

/** The module's default 7-bit I2C address. */
export const DEFAULT_I2C_ADDRESS = 0x17;
/** Largest `available` the module reports (hosts reject more: 255 minus the 2-byte header). */
export const I2C_AVAILABLE_MAX = 253;

export interface I2cTargetOptions {
  /** 7-bit address (default 0x17). */
  readonly address?: number;
  /** Longest line kept (must hold the largest binary transfer). */
  readonly maxLineBytes?: number;
}

/** Counters a rig or test can read to see what the host did wrong. */
export interface I2cTargetStats {
  writes: number;
  queries: number;
  reads: number;
  /** Data writes whose length byte disagreed with the bytes that arrived. */
  malformedWrites: number;
  /** Reads that took fewer bytes than were staged (the rest is lost, as from a FIFO). */
  shortReads: number;
  /** Reads with nothing staged (no query before them). */
  unstagedReads: number;
  /** Lone-newline resets that dropped unread output. */
  resets: number;
}

const encoder = new TextEncoder();
const NEWLINE = 0x0a;

/**
 * The module's end of the serial-over-I2C protocol, one controller transaction at a time:
 * - write `[N][N bytes]`: request bytes (any chunking), framed into lines as on serial;
 * - write `[0][R]`: a query; the answer `[available][R][R bytes]` is computed and staged at once,
 *   so it is ready before the controller reads (hardware FIFOs need that);
 * - read: the controller clocks out the staged answer.
 * `available` counts the reply text not yet read after the chunk (at most 253). Bytes that follow
 * a reply (binary after `card.binary.get`) only become available once the text before them has
 * been read to its end. A lone newline written when no line is pending is a reset: unread output is
 * dropped and the answer is `\r\n`.
 */
export class I2cTarget {
  readonly address: number;
  readonly stats: I2cTargetStats = {
    writes: 0,
    queries: 0,
    reads: 0,
    malformedWrites: 0,
    shortReads: 0,
    unstagedReads: 0,
    resets: 0,
  };
  readonly #handler: LineHandler;
  readonly #framer: LineFramer;
  /**
   * Output not yet read. Reply text accumulates in one segment; bytes that follow a reply (binary)
   * are a segment of their own, so they only become available once the text before them is read.
   */
  #segments: { bytes: Uint8Array; binary: boolean }[] = [];
  #headOffset = 0;
  #staged: Uint8Array | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(handler: LineHandler, options: I2cTargetOptions = {}) {
    const address = options.address ?? DEFAULT_I2C_ADDRESS;
    if (!Number.isInteger(address) || address < 0x08 || address > 0x77)
      throw new RangeError(`I2C address 0x${address.toString(16)} is outside 0x08..0x77`);
    this.address = address;
    this.#handler = handler;
    this.#framer = new LineFramer({
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      onLine: (line) => this.#enqueue(() => this.#reply(line)),
      onOverflow: (length) => this.#enqueue(() => this.#handler.handleOverflow(length)),
    });
  }

  /** One complete write transaction from the controller (START, address+W, bytes, STOP). */
  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return; // an address probe
    this.stats.writes++;
    const n = bytes[0]!;
    if (n === 0) {
      this.stats.queries++;
      this.#stage(bytes.length > 1 ? bytes[1]! : 0);
      return;
    }
    let data = bytes.subarray(1);
    if (data.length !== n) {
      this.stats.malformedWrites++;
      data = data.subarray(0, n);
    }
    if (data.length === 1 && data[0] === NEWLINE && this.#framer.pending === 0) {
      this.stats.resets += this.#segments.length > 0 ? 1 : 0;
      this.#segments = [];
      this.#headOffset = 0;
      this.#staged = undefined;
    }
    this.#framer.push(data);
  }

  /** What the next read transaction clocks out (empty when nothing is staged). */
  staged(): Uint8Array {
    return this.#staged ?? new Uint8Array();
  }

  /** The controller finished a read after `served` bytes; the staged answer is spent. */
  readDone(served: number): void {
    this.stats.reads++;
    if (!this.#staged) this.stats.unstagedReads++;
    else if (served < this.#staged.length) this.stats.shortReads++;
    this.#staged = undefined;
  }

  /** Bytes of the current reply not yet read (what a `[0][0]` poll would report, uncapped). */
  get available(): number {
    this.#dropDrained();
    const head = this.#segments[0];
    return head ? head.bytes.length - this.#headOffset : 0;
  }

  /** Resolves when every line received so far has been answered. */
  idle(): Promise<void> {
    return this.#chain;
  }

  #stage(requested: number): void {
    this.#dropDrained();
    const head = this.#segments[0];
    const left = head ? head.bytes.length - this.#headOffset : 0;
    const take = Math.min(requested, left);
    const answer = new Uint8Array(2 + requested);
    if (head && take > 0) {
      answer.set(head.bytes.subarray(this.#headOffset, this.#headOffset + take), 2);
      this.#headOffset += take;
    }
    answer[0] = Math.min(left - take, I2C_AVAILABLE_MAX);
    answer[1] = requested;
    this.#staged = answer;
  }

  /** A fully read segment gives way to the next one only at the next query. */
  #dropDrained(): void {
    while (this.#segments.length > 0 && this.#headOffset >= this.#segments[0]!.bytes.length) {
      this.#segments.shift();
      this.#headOffset = 0;
    }
  }

  #appendText(bytes: Uint8Array): void {
    // Read text is dropped first, or each reply would be joined to (and copy) all earlier ones.
    this.#dropDrained();
    const last = this.#segments[this.#segments.length - 1];
    if (!last || last.binary) {
      this.#segments.push({ bytes, binary: false });
      return;
    }
    const joined = new Uint8Array(last.bytes.length + bytes.length);
    joined.set(last.bytes);
    joined.set(bytes, last.bytes.length);
    last.bytes = joined;
  }

  #reply(line: Uint8Array): Promise<string | LineReply | undefined> {
    return this.#handler.handleLineReply
      ? this.#handler.handleLineReply(line)
      : this.#handler.handleLine(line);
  }

  #enqueue(task: () => Promise<string | LineReply | undefined>): void {
    this.#chain = this.#chain.then(async () => {
      const out = await task();
      if (out === undefined) return;
      const text = typeof out === "string" ? out : out.text;
      if (text.length > 0) this.#appendText(encoder.encode(text));
      if (typeof out !== "string" && out.after && out.after.length > 0)
        this.#segments.push({ bytes: out.after, binary: true });
    });
  }
}
