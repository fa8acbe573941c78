import { createWriteStream, type WriteStream } from "node:fs";
import type { Clock } from "../../core/Clock.js";
import { TapStage } from "../stages/ByteStage.js";
import type { CaptureDirection, CaptureEntry, CaptureKind, CaptureMeta } from "./CaptureEntry.js";

export const toHex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"));

/**
 * Records every link of a scenario as capture entries on its clock, in memory and optionally
 * streamed to a JSON-lines file as they happen (so a rig that dies still leaves its capture).
 */
export class LinkCapture {
  readonly #clock: Clock;
  readonly #start: number;
  readonly #entries: CaptureEntry[] = [];
  #stream: WriteStream | undefined;

  constructor(clock: Clock, meta: Omit<CaptureMeta, "format" | "clockStart"> = {}) {
    this.#clock = clock;
    this.#start = clock.now();
    this.#push({
      t: 0,
      link: "capture",
      dir: "meta",
      kind: "meta",
      hex: "",
      info: { ...meta, format: 1, clockStart: this.#start },
    });
  }

  get entries(): readonly CaptureEntry[] {
    return this.#entries;
  }

  get meta(): CaptureMeta {
    return this.#entries[0]!.info as unknown as CaptureMeta;
  }

  /** Milliseconds since the capture started. */
  elapsed(): number {
    return this.#clock.now() - this.#start;
  }

  record(
    link: string,
    dir: CaptureDirection,
    kind: CaptureKind,
    bytes?: Uint8Array,
    info?: Record<string, unknown>,
  ): void {
    const entry: CaptureEntry = {
      t: this.elapsed(),
      link,
      dir,
      kind,
      hex: bytes ? toHex(bytes) : "",
      ...(info ? { info } : {}),
    };
    this.#push(entry);
  }

  /** A stage that records the bytes passing through it as `bytes` entries. */
  tap(link: string, dir: "h2m" | "m2h"): TapStage {
    return new TapStage((bytes) => this.record(link, dir, "bytes", bytes));
  }

  /** Also appends every entry, from the header on, to `path` as JSON lines. */
  streamTo(path: string): void {
    this.#stream = createWriteStream(path, { flags: "w" });
    for (const entry of this.#entries) this.#stream.write(JSON.stringify(entry) + "\n");
  }

  /** The capture as JSON lines. */
  toJsonl(): string {
    return this.#entries.map((e) => JSON.stringify(e) + "\n").join("");
  }

  /** Finishes the file being streamed, if any. */
  async close(): Promise<void> {
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream)
      await new Promise<void>((resolve, reject) =>
        stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
  }

  #push(entry: CaptureEntry): void {
    this.#entries.push(entry);
    this.#stream?.write(JSON.stringify(entry) + "\n");
  }
}
