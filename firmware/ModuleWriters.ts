import type { Notebox } from "./storage/Notebox.js";
import { WriterQueue, type Turn } from "./WriterQueue.js";

/**
 * The module's writers taking turns (docs/architecture.md, "One writer at a time"): requests,
 * background work, the sync engine and a harness's world each run in a turn of one queue, and a
 * writer that waits on the network gives its turn up for the wait (`awaitIo`). Boots are counted,
 * so that a writer waiting across a reboot learns that its state went with the RAM.
 */
export class ModuleWriters {
  readonly #queue = new WriterQueue();
  /** The Notebox of the running boot, whose transaction a waiting writer suspends. */
  readonly #notebox: () => Notebox;
  /** The turn of the writer running now (undefined between writers). */
  #turn: Turn | undefined;
  #boots = 0;

  constructor(notebox: () => Notebox) {
    this.#notebox = notebox;
  }

  /** The module booted (again): writers waiting on I/O from before will fail when they resume. */
  booted(): void {
    this.#boots++;
  }

  /**
   * Runs `task` in its own turn among the module's writers. A turn free now (most are) starts the
   * task at once, with no promise made or awaited for the turn itself.
   */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const taken = this.#queue.take();
    return taken instanceof Promise
      ? taken.then((turn) => this.#inTurn(turn, task))
      : this.#inTurn(taken, task);
  }

  /** `task` in the turn taken; the turn goes on once it settles (no async frame of its own). */
  #inTurn<T>(turn: Turn, task: () => Promise<T>): Promise<T> {
    this.#turn = turn;
    let running: Promise<T>;
    try {
      running = Promise.resolve(task());
    } catch (error) {
      this.#release(turn);
      return Promise.reject(error as Error);
    }
    return running.then(
      (result) => {
        this.#release(turn);
        return result;
      },
      (error: unknown) => {
        this.#release(turn);
        throw error;
      },
    );
  }

  /** awaitIo may have swapped the turn; releases whichever this writer holds now. */
  #release(turn: Turn): void {
    const held = this.#turn ?? turn;
    this.#turn = undefined;
    held.release();
  }

  /**
   * From inside a turn, waits for `io` without holding the module: commits what the writer
   * changed so far, lets the other writers run while `io` is pending, then takes a new turn and
   * continues in a new transaction. A writer that fails after the wait keeps what it committed
   * before it.
   */
  async awaitIo<T>(io: () => Promise<T>): Promise<T> {
    const turn = this.#turn;
    if (!turn) throw new Error("Module.awaitIo: only a writer holding its turn can wait on I/O");
    const boots = this.#boots;
    const notebox = this.#notebox();
    const suspended = await notebox.suspend();
    this.#turn = undefined;
    turn.release();
    try {
      return await io();
    } finally {
      this.#turn = await this.#queue.take();
      if (this.#boots !== boots) {
        // The module restarted during the wait: the writer's state went with the RAM. Its
        // transaction stays out (the new Notebox has none), and the writer ends in an error.
        const again = this.#turn;
        this.#turn = undefined;
        again.release();
        // eslint-disable-next-line no-unsafe-finally
        throw new Error("the module restarted while the request waited");
      }
      notebox.resume(suspended);
    }
  }

  /** Resolves once every writer queued so far has finished. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }
}
