import type { FlashFile, FlashFs, OpenOptions } from "./FlashFs.js";

/** What went through a `MeteredFlashFs`. */
export interface FlashTraffic {
  /** Bytes appended to files: what the flash medium had to write. */
  bytesWritten: number;
  /** File syncs (fsync/fdatasync), and appends made durable by the write itself (O_DSYNC). */
  syncs: number;
  /** Directory syncs. */
  dirSyncs: number;
  /** Bytes read back (opening the store). */
  bytesRead: number;
}

/** Passes every call through to another backend and counts the traffic (benchmarks, tests). */
export class MeteredFlashFs implements FlashFs {
  readonly traffic: FlashTraffic = { bytesWritten: 0, syncs: 0, dirSyncs: 0, bytesRead: 0 };

  constructor(readonly inner: FlashFs) {}

  list(): Promise<string[]> {
    return this.inner.list();
  }

  async read(name: string): Promise<Uint8Array | undefined> {
    const bytes = await this.inner.read(name);
    this.traffic.bytesRead += bytes?.length ?? 0;
    return bytes;
  }

  async readRange(name: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    const bytes = await this.inner.readRange(name, offset, length);
    this.traffic.bytesRead += bytes?.length ?? 0;
    return bytes;
  }

  size(name: string): Promise<number | undefined> {
    return this.inner.size(name);
  }

  async open(name: string, mode: "existing" | "truncate", options?: OpenOptions): Promise<FlashFile> {
    const file = await this.inner.open(name, mode, options);
    const traffic = this.traffic;
    return {
      get size() {
        return file.size;
      },
      writesAreDurable: file.writesAreDurable,
      async append(bytes) {
        await file.append(bytes);
        traffic.bytesWritten += bytes.length;
        if (file.writesAreDurable) traffic.syncs++;
      },
      truncate: (size) => file.truncate(size),
      async sync() {
        await file.sync();
        traffic.syncs++;
      },
      close: () => file.close(),
    };
  }

  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }

  remove(name: string): Promise<void> {
    return this.inner.remove(name);
  }

  async syncDir(): Promise<void> {
    await this.inner.syncDir();
    this.traffic.dirSyncs++;
  }
}
