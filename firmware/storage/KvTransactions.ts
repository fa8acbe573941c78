import type { KvOp, KvStore } from "./KvStore.js";

/** The changes of one transaction: the store operations to commit, and how to undo each in RAM. */
export interface Transaction {
  ops: KvOp[];
  undo: (() => void)[];
}

/** A transaction stepped out of while its writer waits (see `Notebox.suspend`). */
export interface SuspendedTransaction {
  readonly tx: Transaction;
}

/**
 * The transactions of a `Notebox` on its KvStore: at most one at a time, its changes committed as
 * one atomic batch, RAM rolled back (the undo steps, newest first) if it fails or the store
 * refuses the batch. The Notebox records every change in the `current` transaction.
 */
export class KvTransactions {
  readonly #store: KvStore;
  #tx: Transaction | undefined;

  constructor(store: KvStore) {
    this.#store = store;
  }

  get active(): boolean {
    return this.#tx !== undefined;
  }

  /**
   * `Notebox.transact`: runs `fn` and commits its changes, or rolls RAM back and rethrows. A task
   * that did its work synchronously (most do) is not awaited, and one that changed nothing
   * commits nothing.
   */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.#tx) return Promise.reject(new Error("Notebox.transact: transactions do not nest"));
    const tx: Transaction = { ops: [], undo: [] };
    this.#tx = tx;
    let done: T | Promise<T>;
    try {
      done = fn();
    } catch (error) {
      this.#rollBack(tx);
      return Promise.reject(error as Error);
    }
    if (done instanceof Promise) return this.#settle(tx, done);
    if (tx.ops.length === 0) {
      this.#tx = undefined;
      return Promise.resolve(done);
    }
    const result = done;
    let committing: Promise<void>;
    try {
      committing = this.#store.commit(tx.ops);
    } catch (error) {
      this.#rollBack(tx);
      return Promise.reject(error as Error);
    }
    return committing.then(
      () => {
        this.#tx = undefined;
        return result;
      },
      (error: unknown) => {
        this.#rollBack(tx);
        throw error;
      },
    );
  }

  /** The rest of `run` for a task that waits. */
  async #settle<T>(tx: Transaction, done: Promise<T>): Promise<T> {
    try {
      const result = await done;
      if (tx.ops.length > 0) await this.#store.commit(tx.ops);
      return result;
    } catch (error) {
      this.#rollBack(tx);
      throw error;
    } finally {
      this.#tx = undefined;
    }
  }

  /** Undoes `tx` in RAM, newest change first, and ends it. */
  #rollBack(tx: Transaction): void {
    for (let i = tx.undo.length - 1; i >= 0; i--) tx.undo[i]!();
    this.#tx = undefined;
  }

  /** `Notebox.suspend`: commits what the transaction changed so far and steps out of it. */
  async suspend(): Promise<SuspendedTransaction> {
    const tx = this.current();
    try {
      if (tx.ops.length > 0) await this.#store.commit(tx.ops);
    } catch (error) {
      for (let i = tx.undo.length - 1; i >= 0; i--) tx.undo[i]!();
      tx.ops.length = 0;
      tx.undo.length = 0;
      throw error;
    }
    tx.ops.length = 0;
    tx.undo.length = 0;
    this.#tx = undefined;
    return { tx };
  }

  /** Steps back into a suspended transaction (no other may be running). */
  resume(suspended: SuspendedTransaction): void {
    if (this.#tx) throw new Error("Notebox.resume: another transaction is running");
    this.#tx = suspended.tx;
  }

  /** The running transaction; changing state outside one is a programming error. */
  current(): Transaction {
    if (!this.#tx) throw new Error("Notebox: state changes must happen inside transact()");
    return this.#tx;
  }
}
