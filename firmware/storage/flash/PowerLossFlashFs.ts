import {
  FlashFsError,
  type FlashFile,
  type FlashFs,
  type FlashFsErrorCode,
  type OpenOptions,
} from "./FlashFs.js";
import { GrowableBytes } from "./GrowableBytes.js";

/**
 * What survives when power fails (after RocksDB's FaultInjectionTestFS and LazyFS):
 * - `drop-unsynced`: only what was synced: file bytes after `FlashFile.sync()`, directory
 *   entries after `syncDir()`. The page cache is simply lost.
 * - `torn-write`: everything the program did reached the medium except the last unsynced write,
 *   which stopped part way (at the byte `tear` chooses). Directory changes are kept.
 * - `rename-lost`: all written bytes reached the medium but the directory lost every change
 *   since its last `syncDir()`: renames undone, new files gone, removed files back.
 */
export type PowerLossMode = "drop-unsynced" | "torn-write" | "rename-lost";

export const POWER_LOSS_MODES: readonly PowerLossMode[] = ["drop-unsynced", "torn-write", "rename-lost"];

interface Inode {
  durable: Uint8Array;
  data: GrowableBytes;
  /** Changes since the last sync, in order; `order` is global across files. */
  pending: PendingChange[];
}

type PendingChange =
  | { readonly kind: "append"; readonly order: number; readonly offset: number; readonly bytes: Uint8Array }
  | { readonly kind: "truncate"; readonly order: number; readonly size: number };

export interface PowerUpOptions {
  /** For `torn-write`: how many bytes of the torn write (of `length`) reached the medium. */
  readonly tear?: (length: number) => number;
}

/**
 * A flash directory in RAM that can lose power. Every mutating operation is a numbered step;
 * `failAtStep(n)` makes step n fail (by default as a power loss: the step's effect may or may not
 * survive, depending on the mode given to `powerUp`, and every later operation fails until then).
 * Deterministic: the same program crashes at the same step every run, which is what lets a test
 * crash a scenario at every step in turn.
 */
export class PowerLossFlashFs implements FlashFs {
  #volatileDir = new Map<string, Inode>();
  #durableDir = new Map<string, Inode>();
  #steps = 0;
  #order = 0;
  #failures = new Map<number, FlashFsErrorCode>();
  #powered = true;
  #epoch = 0;

  /** Mutating operations performed so far (the last failed one included). */
  get steps(): number {
    return this.#steps;
  }

  /** False between a power loss and `powerUp`. */
  get powered(): boolean {
    return this.#powered;
  }

  /**
   * Makes mutating operation number `step` (counted since this flash was created) fail with
   * `code`. `power-lost` cuts the power at that point; any other code fails just that operation:
   * `full` changes nothing, `io` lets the operation reach the page cache (not the medium) first.
   */
  failAtStep(step: number, code: FlashFsErrorCode = "power-lost"): void {
    this.#failures.set(step, code);
  }

  /** Cuts the power now, between operations. */
  powerFail(): void {
    this.#powered = false;
  }

  /**
   * Powers the flash up again after a power loss, keeping what `mode` says survived. Handles
   * opened before stop working, as they would after a reboot.
   */
  powerUp(mode: PowerLossMode, options: PowerUpOptions = {}): void {
    const dir = mode === "torn-write" ? this.#volatileDir : this.#durableDir;
    let torn: { inode: Inode; order: number } | undefined;
    if (mode === "torn-write") {
      for (const inode of new Set(this.#volatileDir.values())) {
        for (const change of inode.pending) {
          if (change.kind === "append" && (!torn || change.order > torn.order))
            torn = { inode, order: change.order };
        }
      }
    }
    const survivors = new Map<string, Inode>();
    const rebuilt = new Map<Inode, Inode>();
    for (const [name, inode] of dir) {
      let after = rebuilt.get(inode);
      if (!after) {
        let bytes: Uint8Array;
        if (mode === "drop-unsynced") bytes = inode.durable;
        else if (mode === "rename-lost") bytes = inode.data.toBytes();
        else bytes = replay(inode, torn?.inode === inode ? torn.order : -1, options.tear);
        after = { durable: bytes, data: new GrowableBytes(bytes), pending: [] };
        rebuilt.set(inode, after);
      }
      survivors.set(name, after);
    }
    this.#volatileDir = survivors;
    this.#durableDir = new Map(survivors);
    this.#failures.clear();
    this.#powered = true;
    this.#epoch++;
  }

  /**
   * An independent copy of this flash as it is now (pending writes and power state included), so
   * a test can try several futures from one state, such as each way a power loss can end.
   */
  clone(): PowerLossFlashFs {
    const copy = new PowerLossFlashFs();
    const inodes = new Map<Inode, Inode>();
    const dup = (inode: Inode): Inode => {
      let d = inodes.get(inode);
      if (!d) {
        d = {
          durable: inode.durable,
          data: new GrowableBytes(inode.data.toBytes()),
          pending: [...inode.pending],
        };
        inodes.set(inode, d);
      }
      return d;
    };
    for (const [name, inode] of this.#volatileDir) copy.#volatileDir.set(name, dup(inode));
    for (const [name, inode] of this.#durableDir) copy.#durableDir.set(name, dup(inode));
    copy.#steps = this.#steps;
    copy.#order = this.#order;
    copy.#powered = this.#powered;
    return copy;
  }

  /** A file's current content bypassing power checks (tests inspect and damage flash with it). */
  peek(name: string): Uint8Array | undefined {
    return this.#volatileDir.get(name)?.data.toBytes();
  }

  /** Replaces a file's content durably (tests use it to damage a store on purpose). */
  poke(name: string, bytes: Uint8Array): void {
    const inode: Inode = { durable: bytes.slice(), data: new GrowableBytes(bytes), pending: [] };
    this.#volatileDir.set(name, inode);
    this.#durableDir.set(name, inode);
  }

  async list(): Promise<string[]> {
    this.#checkPower();
    return [...this.#volatileDir.keys()];
  }

  async read(name: string): Promise<Uint8Array | undefined> {
    this.#checkPower();
    return this.#volatileDir.get(name)?.data.toBytes();
  }

  async readRange(name: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    this.#checkPower();
    return this.#volatileDir
      .get(name)
      ?.data.view()
      .slice(offset, offset + length);
  }

  async size(name: string): Promise<number | undefined> {
    this.#checkPower();
    return this.#volatileDir.get(name)?.data.length;
  }

  async open(name: string, mode: "existing" | "truncate", options: OpenOptions = {}): Promise<FlashFile> {
    this.#checkPower();
    const durable = options.durableWrites ?? false;
    let inode = this.#volatileDir.get(name);
    if (mode === "existing") {
      if (!inode) throw new FlashFsError("not-found", `no such file: ${name}`);
      return new PowerLossFlashFile(this, inode, this.#epoch, durable);
    }
    const target = inode;
    this.step(() => {
      if (target) {
        target.pending.push({ kind: "truncate", order: ++this.#order, size: 0 });
        target.data.resize(0);
      } else {
        inode = { durable: new Uint8Array(), data: new GrowableBytes(), pending: [] };
        this.#volatileDir.set(name, inode);
      }
    });
    return new PowerLossFlashFile(this, inode!, this.#epoch, durable);
  }

  async rename(from: string, to: string): Promise<void> {
    this.#checkPower();
    const inode = this.#volatileDir.get(from);
    if (!inode) throw new FlashFsError("not-found", `no such file: ${from}`);
    this.step(() => {
      this.#volatileDir.delete(from);
      this.#volatileDir.set(to, inode);
    });
  }

  async remove(name: string): Promise<void> {
    this.#checkPower();
    if (!this.#volatileDir.has(name)) return;
    this.step(() => this.#volatileDir.delete(name));
  }

  async syncDir(): Promise<void> {
    this.#checkPower();
    this.step(
      () => {},
      () => (this.#durableDir = new Map(this.#volatileDir)),
    );
  }

  /** @internal Used by file handles. */
  checkHandle(epoch: number): void {
    this.#checkPower();
    if (epoch !== this.#epoch) throw new FlashFsError("io", "stale file handle: the flash was power-cycled");
  }

  /** @internal Records a pending change of a file. */
  nextOrder(): number {
    return ++this.#order;
  }

  /**
   * @internal Runs one mutating operation as the next step. `effect` is what reaches the page
   * cache (it happens even when power is lost during this step); `completion` is what happens only
   * when the step completes (a sync).
   */
  step(effect: () => void, completion?: () => void): void {
    const step = ++this.#steps;
    const failure = this.#failures.get(step);
    if (failure === "power-lost") {
      effect();
      this.#powered = false;
      throw new FlashFsError("power-lost", `power lost during flash operation ${step}`);
    }
    if (failure) {
      // An I/O error may strike after the data reached the page cache; a full disk refuses it.
      if (failure === "io") effect();
      throw new FlashFsError(failure, `injected ${failure} failure at flash operation ${step}`);
    }
    effect();
    completion?.();
  }

  #checkPower(): void {
    if (!this.#powered) throw new FlashFsError("power-lost", "flash has no power");
  }
}

/** The durable bytes with the pending changes replayed; the change numbered `tornOrder` torn. */
function replay(inode: Inode, tornOrder: number, tear?: (length: number) => number): Uint8Array {
  const bytes = new GrowableBytes(inode.durable);
  for (const change of inode.pending) {
    if (change.kind === "truncate") {
      bytes.resize(change.size);
      continue;
    }
    let data = change.bytes;
    if (change.order === tornOrder) {
      const kept = Math.max(0, Math.min(data.length, Math.floor(tear ? tear(data.length) : data.length / 2)));
      data = data.subarray(0, kept);
    }
    // Appends land at the end of the file as it was when they were made.
    bytes.resize(change.offset);
    bytes.append(data);
  }
  return bytes.toBytes();
}

class PowerLossFlashFile implements FlashFile {
  readonly #fs: PowerLossFlashFs;
  readonly #inode: Inode;
  readonly #epoch: number;
  #closed = false;

  constructor(
    fs: PowerLossFlashFs,
    inode: Inode,
    epoch: number,
    readonly writesAreDurable: boolean,
  ) {
    this.#fs = fs;
    this.#inode = inode;
    this.#epoch = epoch;
  }

  get size(): number {
    return this.#inode.data.length;
  }

  async append(bytes: Uint8Array): Promise<void> {
    this.#check();
    const copy = bytes.slice();
    // With durable writes (O_DSYNC) the write reaches the medium before the step completes; power
    // lost during the step leaves it as unsynced as any other write.
    this.#fs.step(
      () => {
        const offset = this.#inode.data.length;
        this.#inode.pending.push({ kind: "append", order: this.#fs.nextOrder(), offset, bytes: copy });
        this.#inode.data.append(copy);
      },
      this.writesAreDurable ? () => this.#promote() : undefined,
    );
  }

  async truncate(size: number): Promise<void> {
    this.#check();
    this.#fs.step(() => {
      this.#inode.pending.push({ kind: "truncate", order: this.#fs.nextOrder(), size });
      this.#inode.data.resize(size);
    });
  }

  async sync(): Promise<void> {
    this.#check();
    this.#fs.step(
      () => {},
      () => this.#promote(),
    );
  }

  #promote(): void {
    this.#inode.durable = this.#inode.data.toBytes();
    this.#inode.pending = [];
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #check(): void {
    if (this.#closed) throw new FlashFsError("io", "file handle is closed");
    this.#fs.checkHandle(this.#epoch);
  }
}
