import { Md5 } from "../../core/md5.js";
import { storageFull } from "../errors.js";
import type { FlashFile, FlashFs } from "./flash/FlashFs.js";

/** Files of this store in the flash directory: `lob.<name>`. */
const PREFIX = "lob.";
/** Bytes read at a time when a whole object is scanned (digests). */
const SCAN_CHUNK = 64 * 1024;
/** Default room for large objects: one 4 MiB host firmware image and a module image beside it. */
export const DEFAULT_LARGE_OBJECT_CAPACITY = 8 * 1024 * 1024;

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface LargeObjectInfo {
  readonly name: string;
  /** Bytes stored (durable) so far. */
  readonly size: number;
}

/**
 * Objects too large to keep in RAM or in the journal (firmware images a module downloads in
 * chunks over several sessions), each an append-only file on the module's flash. A chunk is
 * durable when `append` resolves; after a power loss the object holds whatever of its tail
 * survived, so a writer records in its own (journalled) state how far it got and cuts the
 * object back to that with `truncate` before it continues. Objects are read in ranges, never
 * whole. Room is booked up front (`create` with the final length) against the store's capacity,
 * so a download that cannot fit is refused before its first byte.
 */
export class LargeObjectStore {
  readonly #fs: FlashFs;
  readonly #capacity: number;
  /** Booked length of each object (what `create` was told). */
  readonly #booked = new Map<string, number>();
  readonly #open = new Map<string, FlashFile>();

  private constructor(fs: FlashFs, capacity: number) {
    this.#fs = fs;
    this.#capacity = capacity;
  }

  /** Opens the store on a flash directory (the module's own, beside its journal). */
  static async open(fs: FlashFs, options: { capacity?: number } = {}): Promise<LargeObjectStore> {
    const store = new LargeObjectStore(fs, options.capacity ?? DEFAULT_LARGE_OBJECT_CAPACITY);
    for (const file of await fs.list()) {
      if (!file.startsWith(PREFIX)) continue;
      const size = (await fs.size(file)) ?? 0;
      store.#booked.set(file.slice(PREFIX.length), size);
    }
    return store;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Bytes booked by every object (at least what each holds). */
  get used(): number {
    let total = 0;
    for (const booked of this.#booked.values()) total += booked;
    return total;
  }

  list(): string[] {
    return [...this.#booked.keys()].sort();
  }

  has(name: string): boolean {
    return this.#booked.has(name);
  }

  async info(name: string): Promise<LargeObjectInfo | undefined> {
    if (!this.#booked.has(name)) return undefined;
    return { name, size: (await this.#fs.size(PREFIX + name)) ?? 0 };
  }

  /**
   * Creates an empty object booked for `length` bytes, replacing any of that name. Refuses with
   * `{file-storage-full}` when the other objects leave less room than that.
   */
  async create(name: string, length: number): Promise<void> {
    checkName(name);
    if (!Number.isSafeInteger(length) || length < 0) throw new Error(`bad object length ${length}`);
    const others = this.used - (this.#booked.get(name) ?? 0);
    if (others + length > this.#capacity) throw storageFull();
    await this.#close(name);
    const file = await this.#fs.open(PREFIX + name, "truncate", { durableWrites: true });
    await file.sync();
    await this.#fs.syncDir();
    this.#open.set(name, file);
    this.#booked.set(name, length);
  }

  /**
   * Books `length` bytes again for an object found at boot (a download resuming after a
   * restart: the booking lives in RAM, the writer's own state knows the final length).
   */
  reserve(name: string, length: number): void {
    const booked = this.#booked.get(name);
    if (booked === undefined) throw new Error(`no large object ${name}`);
    if (this.used - booked + length > this.#capacity) throw storageFull();
    this.#booked.set(name, length);
  }

  /**
   * Appends `bytes` at `offset`, which must be the object's current size; durable when it
   * resolves. Writing past the booked length is refused (`{file-storage-full}`).
   */
  async append(name: string, offset: number, bytes: Uint8Array): Promise<number> {
    const booked = this.#booked.get(name);
    if (booked === undefined) throw new Error(`no large object ${name}`);
    const file = await this.#file(name);
    if (offset !== file.size)
      throw new Error(`${name}: append at ${offset}, but it holds ${file.size} bytes`);
    if (offset + bytes.length > booked) throw storageFull();
    await file.append(bytes);
    if (!file.writesAreDurable) await file.sync();
    return file.size;
  }

  /** Cuts an object back to `size` bytes (what its writer knows it wrote), dropping any tail. */
  async truncate(name: string, size: number): Promise<void> {
    const file = await this.#file(name);
    if (size > file.size) throw new Error(`${name} holds ${file.size} bytes, cannot keep ${size}`);
    if (size === file.size) return;
    await file.truncate(size);
    await file.sync();
  }

  /** Up to `length` bytes from `offset` (fewer at the end of what is stored). */
  async read(name: string, offset: number, length: number): Promise<Uint8Array> {
    if (!this.#booked.has(name)) throw new Error(`no large object ${name}`);
    return (await this.#fs.readRange(PREFIX + name, offset, length)) ?? new Uint8Array(0);
  }

  /** MD5 of the first `length` bytes (default all), read a chunk at a time. */
  async md5(name: string, length?: number): Promise<string> {
    const size = (await this.info(name))?.size ?? 0;
    const end = Math.min(size, length ?? size);
    const md5 = new Md5();
    for (let at = 0; at < end; at += SCAN_CHUNK) {
      md5.update(await this.read(name, at, Math.min(SCAN_CHUNK, end - at)));
    }
    return md5.hex();
  }

  async delete(name: string): Promise<void> {
    if (!this.#booked.has(name)) return;
    await this.#close(name);
    await this.#fs.remove(PREFIX + name);
    await this.#fs.syncDir();
    this.#booked.delete(name);
  }

  /** Deletes every object (`card.restore delete:true`). */
  async clear(): Promise<void> {
    for (const name of this.list()) await this.delete(name);
  }

  async close(): Promise<void> {
    for (const name of [...this.#open.keys()]) await this.#close(name);
  }

  async #file(name: string): Promise<FlashFile> {
    let file = this.#open.get(name);
    if (!file) {
      file = await this.#fs.open(PREFIX + name, "existing", { durableWrites: true });
      this.#open.set(name, file);
    }
    return file;
  }

  async #close(name: string): Promise<void> {
    const file = this.#open.get(name);
    this.#open.delete(name);
    await file?.close();
  }
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new Error(`large object names are 1-64 of [a-z0-9_-], got "${name}"`);
}
