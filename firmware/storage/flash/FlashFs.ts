/**
 * The file system a module's flash lives on: one flat directory of files. The flash store only
 * needs these few operations, with POSIX durability rules: written bytes are durable after
 * `FlashFile.sync()`, and creating, renaming or removing a file is durable after `syncDir()`.
 *
 * Backends: `MemoryFlashFs` (fast tests), `PowerLossFlashFs` (models power loss: unsynced
 * writes dropped or torn, directory changes lost), and the Node file system at the edge
 * (`hil/storage/NodeFlashFs.ts`). firmware/ never touches a real disk itself.
 */
export interface FlashFs {
  /** Names of the files in the directory (no order promised). */
  list(): Promise<string[]>;
  /** The whole content of a file, or undefined when there is no such file. */
  read(name: string): Promise<Uint8Array | undefined>;
  /**
   * Up to `length` bytes of a file from `offset` (fewer at its end), without reading the rest:
   * large objects (firmware images) are read this way, never whole. Undefined when there is no
   * such file.
   */
  readRange(name: string, offset: number, length: number): Promise<Uint8Array | undefined>;
  /** The length of a file, or undefined when there is no such file. */
  size(name: string): Promise<number | undefined>;
  /**
   * Opens a file for writing. `existing`: the file must exist, writes go at its end. `truncate`:
   * creates the file or empties it. `durableWrites` asks that each append be durable when it
   * resolves (O_DSYNC: one round trip instead of a write and a sync); a backend that cannot do
   * that says so in `FlashFile.writesAreDurable`.
   */
  open(name: string, mode: "existing" | "truncate", options?: OpenOptions): Promise<FlashFile>;
  /** Renames `from` to `to`, replacing `to` atomically if it exists. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; removing a missing file is not an error. */
  remove(name: string): Promise<void>;
  /** Makes creations, renames and removals in the directory durable. */
  syncDir(): Promise<void>;
}

export interface OpenOptions {
  readonly durableWrites?: boolean;
}

export interface FlashFile {
  /** Current length of the file as this handle sees it. */
  readonly size: number;
  /** True when every append is durable once it resolves (no `sync()` needed after it). */
  readonly writesAreDurable: boolean;
  /** Appends bytes at the end of the file. */
  append(bytes: Uint8Array): Promise<void>;
  /** Cuts the file to `size` bytes. */
  truncate(size: number): Promise<void>;
  /** Makes everything written through this handle durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What went wrong in a backend, reduced to what the store acts on. `full`: the device is out of
 * space; `not-found`; `permission`; `power-lost` (simulated power failure, every later operation
 * fails until the flash is powered up again); `io`: anything else.
 */
export type FlashFsErrorCode = "full" | "not-found" | "permission" | "power-lost" | "io";

export class FlashFsError extends Error {
  override readonly name = "FlashFsError";

  constructor(
    readonly code: FlashFsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isFlashFsError(error: unknown, code?: FlashFsErrorCode): error is FlashFsError {
  return error instanceof FlashFsError && (code === undefined || error.code === code);
}
