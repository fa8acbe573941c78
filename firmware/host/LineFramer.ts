/**
 * Splits the byte stream from a host into lines at `\n`. A trailing `\r` is part of the line (the
 * request layer treats it as whitespace). A line longer than `maxLineBytes` is discarded up to
 * its newline and reported once as an overflow, so the line after it is read normally.
 */
export class LineFramer {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: Uint8Array) => void;
  readonly #onOverflow: (length: number) => void;
  #parts: Uint8Array[] = [];
  #length = 0;
  #overflowed = 0;

  constructor(options: {
    maxLineBytes: number;
    onLine: (line: Uint8Array) => void;
    onOverflow: (length: number) => void;
  }) {
    this.#maxLineBytes = options.maxLineBytes;
    this.#onLine = options.onLine;
    this.#onOverflow = options.onOverflow;
  }

  /** Bytes received but not yet ended by a newline. */
  get pending(): number {
    return this.#overflowed ? 0 : this.#length;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      this.#append(chunk.subarray(start, end));
      if (nl < 0) return;
      this.#endLine();
      start = nl + 1;
    }
  }

  /** Forgets a partial line (the host reset the link). */
  reset(): void {
    this.#parts = [];
    this.#length = 0;
    this.#overflowed = 0;
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#overflowed) {
      this.#overflowed += bytes.length;
      return;
    }
    if (this.#length + bytes.length > this.#maxLineBytes) {
      this.#overflowed = this.#length + bytes.length;
      this.#parts = [];
      this.#length = 0;
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.#parts.push(bytes.slice());
    this.#length += bytes.length;
  }

  #endLine(): void {
    if (this.#overflowed) {
      const length = this.#overflowed;
      this.#overflowed = 0;
      this.#onOverflow(length);
      return;
    }
    let line: Uint8Array;
    if (this.#parts.length === 1) line = this.#parts[0]!;
    else {
      line = new Uint8Array(this.#length);
      let offset = 0;
      for (const part of this.#parts) {
        line.set(part, offset);
        offset += part.length;
      }
    }
    this.#parts = [];
    this.#length = 0;
    this.#onLine(line);
  }
}
