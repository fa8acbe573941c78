import { FlashFsError, type FlashFile, type FlashFs, type OpenOptions } from "./FlashFs.js";
import { GrowableBytes } from "./GrowableBytes.js";

/**
 * Flash in RAM with no failure modes: everything written is immediately "durable". For fast
 * tests and benchmarks; the same instance passed to a new store is a reboot on the same flash.
 * Use `PowerLossFlashFs` to test what survives a power failure.
 */
export class MemoryFlashFs implements FlashFs {
  readonly #files = new Map<string, GrowableBytes>();

  async list(): Promise<string[]> {
    return [...this.#files.keys()];
  }

  async read(name: string): Promise<Uint8Array | undefined> {
    return this.#files.get(name)?.toBytes();
  }

  async readRange(name: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    return this.#files
      .get(name)
      ?.view()
      .slice(offset, offset + length);
  }

  async size(name: string): Promise<number | undefined> {
    return this.#files.get(name)?.length;
  }

  async open(name: string, mode: "existing" | "truncate", options: OpenOptions = {}): Promise<FlashFile> {
    let file = this.#files.get(name);
    if (mode === "truncate") {
      file = new GrowableBytes();
      this.#files.set(name, file);
    } else if (!file) {
      throw new FlashFsError("not-found", `no such file: ${name}`);
    }
    return new MemoryFlashFile(file, options.durableWrites ?? false);
  }

  async rename(from: string, to: string): Promise<void> {
    const file = this.#files.get(from);
    if (!file) throw new FlashFsError("not-found", `no such file: ${from}`);
    this.#files.delete(from);
    this.#files.set(to, file);
  }

  async remove(name: string): Promise<void> {
    this.#files.delete(name);
  }

  async syncDir(): Promise<void> {}

  /** Replaces a file's content outright (tests use it to damage a store on purpose). */
  put(name: string, bytes: Uint8Array): void {
    this.#files.set(name, new GrowableBytes(bytes));
  }
}

class MemoryFlashFile implements FlashFile {
  readonly #file: GrowableBytes;
  #closed = false;

  constructor(
    file: GrowableBytes,
    readonly writesAreDurable: boolean,
  ) {
    this.#file = file;
  }

  get size(): number {
    return this.#file.length;
  }

  async append(bytes: Uint8Array): Promise<void> {
    this.#check();
    this.#file.append(bytes);
  }

  async truncate(size: number): Promise<void> {
    this.#check();
    this.#file.resize(size);
  }

  async sync(): Promise<void> {
    this.#check();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #check(): void {
    if (this.#closed) throw new FlashFsError("io", "file handle is closed");
  }
}
