import { constants } from "node:fs";
import { open, readdir, readFile, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  FlashFsError,
  type FlashFile,
  type FlashFs,
  type FlashFsErrorCode,
  type OpenOptions,
} from "../../firmware/storage/flash/FlashFs.js";

/** O_DSYNC where the platform has it (not on Windows): each write durable when it returns. */
const DSYNC = constants.O_DSYNC;

/**
 * The module's flash as a directory on the real file system (an SD card on a Pi). Durability
 * follows POSIX: `FlashFile.sync()` is fdatasync, durable writes use O_DSYNC, `syncDir()` fsyncs
 * the directory (skipped on Windows, which cannot open a directory for syncing).
 */
export class NodeFlashFs implements FlashFs {
  constructor(readonly dir: string) {}

  async list(): Promise<string[]> {
    try {
      const entries = await readdir(this.dir, { withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => e.name);
    } catch (error) {
      throw fsError(error);
    }
  }

  async read(name: string): Promise<Uint8Array | undefined> {
    try {
      const buffer = await readFile(join(this.dir, name));
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw fsError(error);
    }
  }

  async readRange(name: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    let handle;
    try {
      handle = await open(join(this.dir, name), "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw fsError(error);
    }
    try {
      const out = new Uint8Array(Math.max(0, length));
      let got = 0;
      while (got < out.length) {
        const { bytesRead } = await handle.read(out, got, out.length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === out.length ? out : out.slice(0, got);
    } catch (error) {
      throw fsError(error);
    } finally {
      await handle.close();
    }
  }

  async size(name: string): Promise<number | undefined> {
    try {
      return (await stat(join(this.dir, name))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw fsError(error);
    }
  }

  async open(name: string, mode: "existing" | "truncate", options: OpenOptions = {}): Promise<FlashFile> {
    try {
      const durable = options.durableWrites === true && DSYNC !== undefined;
      let flags: string | number = mode === "existing" ? "r+" : "w";
      if (durable) {
        flags = constants.O_RDWR | DSYNC | (mode === "truncate" ? constants.O_CREAT | constants.O_TRUNC : 0);
      }
      const handle = await open(join(this.dir, name), flags, 0o644);
      const size = mode === "existing" ? (await handle.stat()).size : 0;
      return new NodeFlashFile(handle, size, durable);
    } catch (error) {
      throw fsError(error);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      await rename(join(this.dir, from), join(this.dir, to));
    } catch (error) {
      throw fsError(error);
    }
  }

  async remove(name: string): Promise<void> {
    try {
      await unlink(join(this.dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw fsError(error);
    }
  }

  async syncDir(): Promise<void> {
    if (process.platform === "win32") return;
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.dir, "r");
      await handle.sync();
    } catch (error) {
      throw fsError(error);
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }
}

class NodeFlashFile implements FlashFile {
  readonly #handle: FileHandle;
  #size: number;

  constructor(
    handle: FileHandle,
    size: number,
    readonly writesAreDurable: boolean,
  ) {
    this.#handle = handle;
    this.#size = size;
  }

  get size(): number {
    return this.#size;
  }

  async append(bytes: Uint8Array): Promise<void> {
    try {
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await this.#handle.write(
          bytes,
          done,
          bytes.length - done,
          this.#size + done,
        );
        done += bytesWritten;
      }
      this.#size += bytes.length;
    } catch (error) {
      throw fsError(error);
    }
  }

  async truncate(size: number): Promise<void> {
    try {
      await this.#handle.truncate(size);
      this.#size = size;
    } catch (error) {
      throw fsError(error);
    }
  }

  async sync(): Promise<void> {
    try {
      await this.#handle.datasync();
    } catch (error) {
      throw fsError(error);
    }
  }

  async close(): Promise<void> {
    try {
      await this.#handle.close();
    } catch (error) {
      throw fsError(error);
    }
  }
}

const CODES: Record<string, FlashFsErrorCode> = {
  ENOSPC: "full",
  EDQUOT: "full",
  ENOENT: "not-found",
  EACCES: "permission",
  EPERM: "permission",
  EROFS: "permission",
};

function fsError(error: unknown): FlashFsError {
  const code = (error as NodeJS.ErrnoException)?.code;
  return new FlashFsError((code && CODES[code]) || "io", String((error as Error)?.message ?? error));
}
