import { LineFramer } from "./LineFramer.js";
import type { LineReply } from "./LineReply.js";

/** What a serial session needs from a module. */
export interface LineHandler {
  handleLine(line: Uint8Array): Promise<string | undefined>;
  /** Like handleLine, with the bytes that follow some replies (binary data); preferred when present. */
  handleLineReply?(line: Uint8Array): Promise<LineReply | undefined>;
  /** A line longer than the link can hold was discarded; `length` bytes were dropped. */
  handleOverflow(length: number): Promise<string | undefined>;
}

export interface SerialSessionOptions {
  /** Sends bytes to the host. */
  readonly write: (bytes: Uint8Array) => void;
  /**
   * Longest line kept in memory. It must hold the largest binary transfer (COBS bytes arrive as one
   * line); JSON requests are held to their own, smaller limit by the module.
   */
  readonly maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/**
 * The module's end of a byte-stream link (UART, USB CDC, TCP, pty): frames lines, feeds them to
 * the module one at a time in order, and writes each reply. Any chunking of the input gives the
 * same replies.
 */
export class SerialSession {
  readonly #handler: LineHandler;
  readonly #write: (bytes: Uint8Array) => void;
  readonly #framer: LineFramer;
  #chain: Promise<void> = Promise.resolve();

  constructor(handler: LineHandler, options: SerialSessionOptions) {
    this.#handler = handler;
    this.#write = options.write;
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#framer = new LineFramer({
      maxLineBytes,
      onLine: (line) =>
        this.#enqueue(() =>
          this.#handler.handleLineReply
            ? this.#handler.handleLineReply(line)
            : this.#handler.handleLine(line),
        ),
      onOverflow: (length) => this.#enqueue(() => this.#handler.handleOverflow(length)),
    });
  }

  /** Bytes from the host. */
  receive(chunk: Uint8Array): void {
    this.#framer.push(chunk);
  }

  /** Resolves when every line received so far has been answered. */
  idle(): Promise<void> {
    return this.#chain;
  }

  /** Bytes of a line not yet ended. */
  get pending(): number {
    return this.#framer.pending;
  }

  #enqueue(task: () => Promise<string | LineReply | undefined>): void {
    this.#chain = this.#chain.then(async () => {
      const out = await task();
      if (out === undefined) return;
      if (typeof out === "string") return this.#write(encoder.encode(out));
      const text = encoder.encode(out.text);
      if (!out.after) return this.#write(text);
      // One write, so nothing can come between a reply and its binary data.
      const bytes = new Uint8Array(text.length + out.after.length);
      bytes.set(text);
      bytes.set(out.after, text.length);
      this.#write(bytes);
    });
  }
}
