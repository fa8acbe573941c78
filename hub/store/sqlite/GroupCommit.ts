import type { Clock, TimerHandle } from "../../../core/Clock.js";

/**
 * Group commits (`SqliteConnection.groupCommits`): the store's transactions are committed several
 * at a time, each a savepoint released into one SQLite transaction, and each answered once that
 * is stored. When a group is committed:
 *
 * - `{ clock, windowMs }`: a window of `clock` time after its first transaction (a fleet's own hub
 *   on its fake clock, where many sessions run in one window);
 * - `{ eventLoopTurn: true }`: at the end of the event-loop turn that opened it (a `setImmediate`,
 *   run in the check phase after the poll phase that handled the turn's requests). A hub serving
 *   devices in real time: an idle hub answers as soon as before (no timer, no added millisecond),
 *   a loaded one commits the messages of every request of a turn at once.
 */
export type GroupCommitOptions = ClockWindow | EventLoopTurn;

export interface ClockWindow {
  readonly clock: Clock;
  /** How long (on `clock`) a group stays open after its first transaction. */
  readonly windowMs: number;
}

export interface EventLoopTurn {
  readonly eventLoopTurn: true;
}

/** A group commit open: one SQLite transaction holding the released transactions of a window. */
export interface CommitGroup {
  readonly stored: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Stops the group's scheduled commit (it is committed, or rolled back, some other way). */
  readonly cancel: () => void;
  /** The window is over: commit as soon as no transaction is open in it. */
  due: boolean;
  /**
   * The transaction that opened the group is still open, without a savepoint of its own (which
   * would copy every page it changes into a journal): undoing it rolls the whole group back.
   */
  bare: boolean;
}

/** A new group (its SQLite transaction begun by the caller), `commit` scheduled as `options` says. */
export function openCommitGroup(options: GroupCommitOptions, commit: () => void): CommitGroup {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const stored = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Whoever waits is told; a group nobody waits for fails silently.
  stored.catch(() => undefined);
  return { stored, resolve, reject, cancel: schedule(options, commit), due: false, bare: true };
}

/** Runs `commit` when the group's window ends; the function returned cancels it. */
function schedule(options: GroupCommitOptions, commit: () => void): () => void {
  if ("eventLoopTurn" in options) {
    const immediate = setImmediate(commit);
    return () => clearImmediate(immediate);
  }
  const { clock } = options;
  const timer: TimerHandle = clock.setTimer(commit, options.windowMs);
  return () => clock.clearTimer(timer);
}
