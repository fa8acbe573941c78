import type { TransactionOptions } from "../HubStore.js";
import { PromiseContext } from "./PromiseContext.js";

/** What opening, committing and undoing a transaction does to the database (SQL for SQLite). */
export interface TransactionSteps {
  /**
   * `depth` 0 is the outermost transaction; deeper ones are nested units (savepoints). `durable`:
   * the outermost transaction must be on disk when its commit returns.
   */
  begin(depth: number, durable: boolean): void;
  /**
   * A promise: the outermost transaction's changes are in a group commit still open, and stored
   * once it resolves (rejects: the group was rolled back). Its caller is answered only then.
   */
  commit(depth: number, durable: boolean): void | Promise<void>;
  rollback(depth: number, durable: boolean): void;
  /** The group commit still open that a store call made outside any transaction joined, if any. */
  held?(): Promise<void> | undefined;
}

/** One open transaction: the outermost, or a unit nested in `parent`. */
interface Frame {
  readonly parent: Frame | undefined;
  readonly depth: number;
  /** Actions to run once the outermost transaction has committed. */
  readonly afterCommit: (() => void)[];
  open: boolean;
  /** An outermost transaction whose commit must reach the disk. */
  readonly durable: boolean;
  /** Why it can no longer commit (see `doom`): it is rolled back and this thrown when it ends. */
  doomed?: { readonly error: unknown };
}

/** Something that waits for its turn: a store call, a transaction's begin or its end. */
interface Waiter {
  /** The transaction it belongs to when it was queued (undefined: none). */
  readonly frame: Frame | undefined;
  /** Runs it; called synchronously when its turn comes. */
  readonly grant: () => void;
}

/** How long context tracking stays on after the last transaction (milliseconds, real time). */
const IDLE_MS = 1000;

/** The frame itself or, once it has ended, its nearest ancestor still open. */
function live(frame: Frame | undefined): Frame | undefined {
  while (frame && !frame.open) frame = frame.parent;
  return frame;
}

/**
 * Lets asynchronous callers share one synchronous connection (better-sqlite3) with transactions
 * that span several awaited store calls.
 *
 * The store's methods do all their SQL synchronously when called, so a single call never
 * interleaves with another. A transaction does: between its awaits, other requests run. The gate
 * therefore lets only the innermost open transaction touch the database: a call (or a new
 * transaction) from anywhere else waits, in arrival order, until that transaction has ended, and
 * then sees its committed state. Which transaction running code belongs to follows the
 * asynchronous context (`PromiseContext`: from each promise to its reactions), so calls made by
 * the transaction's work, however deeply through services and awaits, go straight through; a transaction started inside another joins it as
 * a nested unit. With no transaction open a call costs two comparisons, and the context tracking
 * is switched off a second after the last transaction, so code that never opens a transaction
 * pays nothing for it.
 *
 * Code inside a transaction must not wait for a store call issued outside it (from another
 * request, or from a callback registered before the transaction began): that call waits for the
 * transaction, which would never end.
 */
export class TransactionGate {
  readonly #context = new PromiseContext<Frame>();
  /** Open transactions, outermost first. */
  readonly #stack: Frame[] = [];
  readonly #queue: Waiter[] = [];
  /** How many queued waiters each open frame (undefined: no transaction) has. */
  readonly #waiting = new Map<Frame | undefined, number>();
  /** After-commit actions of a committed transaction, run once the queue has moved on. */
  readonly #actions: (() => void)[] = [];
  #settling = false;
  /** Turns context tracking off once no transaction has run for a second (see `#settle`). */
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #busy = false;

  constructor(private readonly steps: TransactionSteps) {}

  get #top(): Frame | undefined {
    return this.#stack[this.#stack.length - 1];
  }

  /** The innermost open transaction the running code belongs to. */
  #current(): Frame | undefined {
    return this.#stack.length === 0 ? undefined : live(this.#context.getStore());
  }

  /** True when code of `frame` may touch the database now (nothing of its level queued before it). */
  #free(frame: Frame | undefined): boolean {
    return frame === this.#top && !this.#waiting.get(frame);
  }

  /** Queues `grant` until code of `frame` may touch the database. */
  #enqueue(frame: Frame | undefined, grant: () => void): void {
    this.#queue.push({ frame, grant });
    this.#waiting.set(frame, (this.#waiting.get(frame) ?? 0) + 1);
  }

  /** Runs `action` now if `frame` may, else when it may; the result either way as a promise. */
  #when<T>(frame: Frame | undefined, action: () => T): Promise<Awaited<T>> {
    if (this.#free(frame)) {
      try {
        return Promise.resolve(action());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise((resolve, reject) => {
      this.#enqueue(frame, () => {
        try {
          resolve(action() as Awaited<T>);
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Runs one store call: at once, unless a transaction it is not part of is open; then after it. */
  call<T>(work: () => Promise<T>): Promise<T> {
    if (this.#stack.length === 0 && this.#queue.length === 0) return this.#answered(work);
    const frame = this.#current();
    return this.#when(frame, frame ? work : () => this.#answered(work)) as Promise<T>;
  }

  /** `work` outside any transaction, answered once the group commit it joined (if any) is stored. */
  #answered<T>(work: () => Promise<T>): Promise<T> {
    const result = work();
    const held = this.steps.held?.();
    return held ? result.then((value) => held.then(() => value)) : result;
  }

  /**
   * Runs `work` as one transaction: committed when it resolves, rolled back when it throws (the
   * error is passed on). Inside another transaction it is a nested unit of it: a throw undoes
   * only its own changes, and nothing is durable before the outermost transaction commits.
   */
  async transaction<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const parent = this.#current();
    const frame = await this.#when(parent, () => this.#begin(parent, options.durable === true));
    let result: T;
    try {
      result = await this.#context.run(frame, work);
      if (frame.doomed) throw frame.doomed.error;
    } catch (error) {
      // A nested unit still running (started and not awaited) ends before this one does. The
      // work's error is the one to report, should the rollback fail too.
      await this.#when(frame, () => this.#end(frame, false)).catch(() => undefined);
      throw error;
    }
    // A commit held in a group commit answers the caller once the group is stored.
    const { held } = await this.#when(frame, () => ({ held: this.#end(frame, true) }));
    if (held) await held;
    return result;
  }

  /**
   * Marks the transaction the caller is in as unable to commit: a store call in it failed part-way
   * without a savepoint of its own to undo its part (`SqliteConnection.allOrNothing`). However its
   * work goes on (even if it catches `error`), the transaction is rolled back when it ends and
   * `error` thrown. Outside a transaction it does nothing.
   */
  doom(error: unknown): void {
    const frame = this.#current();
    if (frame && !frame.doomed) frame.doomed = { error };
  }

  /**
   * Runs `action` once the transaction the caller is in has committed as a whole (never if it,
   * or the nested unit the caller is in, is rolled back); outside a transaction, at once.
   * Actions run outside any transaction; one that throws is ignored, so the others still run.
   */
  afterCommit(action: () => void): void {
    const frame = this.#current();
    if (frame) frame.afterCommit.push(action);
    else action();
  }

  #begin(queuedIn: Frame | undefined, durable: boolean): Frame {
    // The transaction it was started in may have ended while it waited for its turn.
    const parent = live(queuedIn);
    const depth = this.#stack.length;
    // Only the outermost transaction decides: a nested unit commits with it.
    const frame: Frame = { parent, depth, afterCommit: [], open: true, durable: depth === 0 && durable };
    this.steps.begin(frame.depth, frame.durable);
    this.#stack.push(frame);
    return frame;
  }

  /**
   * Commits or rolls back `frame`, the innermost open transaction; a promise when its commit is
   * held in a group commit (its after-commit actions then wait for it too).
   */
  #end(frame: Frame, commit: boolean): Promise<void> | undefined {
    let failure: unknown;
    let committed = false;
    let held: Promise<void> | undefined;
    try {
      if (commit) {
        held = this.steps.commit(frame.depth, frame.durable) ?? undefined;
        committed = true;
      } else {
        this.steps.rollback(frame.depth, frame.durable);
      }
    } catch (error) {
      failure = error;
      if (commit) {
        try {
          this.steps.rollback(frame.depth, frame.durable);
        } catch {
          // The commit's error is the one to report.
        }
      }
    }
    this.#stack.pop();
    frame.open = false;
    // Whoever waited for this frame now waits for its parent.
    const waiting = this.#waiting.get(frame);
    if (waiting) {
      this.#waiting.delete(frame);
      this.#waiting.set(frame.parent, (this.#waiting.get(frame.parent) ?? 0) + waiting);
    }
    if (committed && held && frame.afterCommit.length > 0)
      held.then(
        () => {
          this.#actions.push(...frame.afterCommit);
          this.#settle();
        },
        () => undefined,
      );
    else if (committed) (frame.parent?.afterCommit ?? this.#actions).push(...frame.afterCommit);
    this.#settle();
    if (failure !== undefined) throw failure;
    return held;
  }

  /** Grants every waiter whose turn has come, in order, then runs committed actions. */
  #settle(): void {
    if (this.#settling) return;
    this.#settling = true;
    try {
      for (;;) {
        const index = this.#queue.findIndex((w) => live(w.frame) === this.#top);
        if (index >= 0) {
          const [waiter] = this.#queue.splice(index, 1);
          const frame = live(waiter!.frame);
          const left = (this.#waiting.get(frame) ?? 1) - 1;
          if (left === 0) this.#waiting.delete(frame);
          else this.#waiting.set(frame, left);
          waiter!.grant();
          continue;
        }
        const action = this.#actions.shift();
        if (!action) break;
        try {
          // Outside any transaction: `run` with none (the tracking stays on).
          this.#context.run(undefined, action);
        } catch {
          // Actions handle their own errors; the commit stands and the other actions run.
        }
      }
    } finally {
      this.#settling = false;
    }
    // Context tracking costs every promise a little, and turning it on and off costs more: it stays
    // on while transactions come one after another (a sync's batches), and goes off once none has
    // run for a second.
    this.#busy = true;
    if (this.#idleTimer === undefined) this.#idleTimer = setTimeout(() => this.#idle(), IDLE_MS).unref();
  }

  #idle(): void {
    this.#idleTimer = undefined;
    if (this.#busy || this.#stack.length > 0 || this.#queue.length > 0) {
      this.#busy = false;
      this.#idleTimer = setTimeout(() => this.#idle(), IDLE_MS).unref();
      return;
    }
    this.#context.disable();
  }
}
