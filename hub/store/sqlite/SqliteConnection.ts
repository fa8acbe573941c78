import Database from "better-sqlite3";
import { Checkpointer, RESTART_BYTES, type CheckpointerOptions } from "./Checkpointer.js";
import { openCommitGroup, type CommitGroup, type GroupCommitOptions } from "./GroupCommit.js";
import { migrations } from "./migrations.js";
import { ReadCache } from "./ReadCache.js";
import { TransactionGate } from "./TransactionGate.js";

export type { GroupCommitOptions } from "./GroupCommit.js";

type Statement = Database.Statement<unknown[], unknown>;

const MAX_CACHED_STATEMENTS = 500;
/** SQLite's default: the commit that takes the log past this many pages copies it into the database. */
const AUTO_CHECKPOINT_PAGES = 1000;
/** Reads kept (`cachedGet`, `cachedAll`): a few a device (its DFU requests, its variables) for a fleet. */
const MAX_CACHED_READS = 65_536;
/** How long after a durable commit its log is copied into the database (see `#checkpointSoon`). */
const CHECKPOINT_DELAY_MS = 100;

export interface SqliteConnectionOptions {
  /**
   * Copies the write-ahead log into the database from a worker thread (`Checkpointer`) instead of
   * in the commit that takes it past 1000 pages, on the event loop. For a file (ignored for
   * ":memory:"); a hub serving devices. Stopped by `stopCheckpointer` (or `close`).
   */
  readonly checkpointer?: boolean | CheckpointerOptions;
}

/**
 * One better-sqlite3 database in WAL mode with a prepared-statement cache and the migrations
 * applied. `path` ":memory:" gives a private in-memory database (tests, benchmarks).
 */
export class SqliteConnection {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Statement>();
  /** Bumped by every write through this connection. */
  #writes = 0;
  readonly #reads: ReadCache;
  #external = -1;
  #externalChecked = false;
  /** Store methods' transactions (`transaction`) running now, one inside another. */
  #nested = 0;
  #checkpoint: ReturnType<typeof setTimeout> | undefined;
  /** Waiting for the pending checkpoint (`checkpointed()`). */
  #checkpointWaiters: (() => void)[] = [];
  #checkpointer: Checkpointer | undefined;
  /** The checkpointer found the log long: start it again between two transactions (`#restartLog`). */
  #restartWanted = false;
  #grouping: GroupCommitOptions | undefined;
  #group: CommitGroup | undefined;
  /** Transactions of the gate open now (outermost and nested). */
  #frames = 0;
  /**
   * Asynchronous transactions over several store calls, and the order of every call around them.
   * A rollback counts as a write: read caches may hold rows the transaction had changed.
   */
  readonly gate = new TransactionGate({
    begin: (depth, durable) => {
      this.#begin(depth, durable);
      this.#frames++;
    },
    commit: (depth, durable) => {
      const group = depth === 0 && !durable ? this.#group : undefined;
      if (group) return this.#releaseIntoGroup(group);
      this.#commit(depth, durable);
      this.#frames--;
    },
    rollback: (depth, durable) => {
      this.#frames--;
      this.#undone();
      if (depth === 0 && !durable && this.#group) return this.#undoInGroup(this.#group);
      // SQLite may already have rolled the whole transaction back itself (after some errors).
      if (!this.db.inTransaction) {
        if (depth === 0 && durable) this.#ordinary();
        return;
      }
      if (depth === 0) {
        this.#control("ROLLBACK");
        if (durable) this.#ordinary();
        return;
      }
      this.#undoTo(`hub_tx_${depth}`);
    },
    held: () => this.#group?.stored,
  });

  /**
   * From now on (`options`), the gate's transactions of each window (of `options.clock` time, or
   * one event-loop turn: see `GroupCommitOptions`) are committed together: a transaction's changes
   * are released into the window's SQLite transaction, and its caller answered once that is
   * committed; a store call outside any transaction that runs while a group is open is answered
   * then too. Fewer, larger commits write a page shared by many transactions once. Without
   * `options` the group open is committed now and every transaction commits on its own again.
   */
  groupCommits(options: GroupCommitOptions | undefined): void {
    this.#grouping = options;
    if (!options) this.commitGroup();
  }

  /** Commits the group commit open now (once no transaction is open in it); nothing when none is. */
  commitGroup(): void {
    const group = this.#group;
    if (!group) return;
    if (this.#frames > 0) {
      group.due = true;
      return;
    }
    this.#detach(group);
    try {
      this.#control("COMMIT");
      group.resolve();
    } catch (error) {
      this.#undone();
      if (this.db.inTransaction) this.#control("ROLLBACK");
      group.reject(error);
    }
    this.#restartLog();
  }

  /** The group open is no longer this connection's (committed or rolled back now): its timer stops. */
  #detach(group: CommitGroup): void {
    this.#group = undefined;
    group.cancel();
  }

  #beginInGroup(options: GroupCommitOptions): void {
    // The group's first transaction runs in the group's own SQLite transaction (`bare`), the
    // others each in a savepoint: undoing one then undoes only its own changes.
    if (this.#group) return this.#control("SAVEPOINT hub_group");
    this.#control("BEGIN IMMEDIATE");
    this.#group = openCommitGroup(options, () => this.commitGroup());
  }

  #commit(depth: number, durable: boolean): void {
    if (depth > 0) return this.#control(`RELEASE hub_tx_${depth}`);
    if (!durable) {
      this.#control("COMMIT");
      return this.#restartLog();
    }
    try {
      this.#control("COMMIT");
    } finally {
      if (!this.db.inTransaction) {
        this.#ordinary();
        this.#checkpointSoon();
      }
    }
  }

  #releaseIntoGroup(group: CommitGroup): Promise<void> {
    if (group.bare) group.bare = false;
    else this.#control("RELEASE hub_group");
    this.#frames--;
    if (group.due) this.commitGroup();
    return group.stored;
  }

  #undoInGroup(group: CommitGroup): void {
    if (group.bare) {
      // The group holds nothing but this transaction: it ends with it (nobody waits for it).
      this.#detach(group);
      group.resolve();
      if (this.db.inTransaction) this.#control("ROLLBACK");
      return this.#restartLog();
    }
    if (!this.db.inTransaction) {
      // SQLite rolled the whole group back itself (after some errors): its transactions are lost.
      this.#detach(group);
      group.reject(new Error("the group commit was rolled back by SQLite"));
      return;
    }
    this.#undoTo("hub_group");
    if (group.due) this.commitGroup();
  }

  #begin(depth: number, durable: boolean): void {
    if (depth > 0) return this.#control(`SAVEPOINT hub_tx_${depth}`);
    // A durable transaction commits on its own, after the group open (if any).
    if (durable) this.commitGroup();
    else if (this.#grouping) return this.#beginInGroup(this.#grouping);
    // A durable transaction syncs the log at its commit (FULL), and leaves copying it into the
    // database to an idle moment: its commit would otherwise checkpoint at once, writing the
    // whole of a large upload a second time before answering. (SQLite allows neither setting to
    // change inside a transaction for the first, so both are set before it begins.)
    if (durable) {
      this.db.pragma("synchronous = FULL");
      this.db.pragma("wal_autocheckpoint = 0");
    }
    try {
      this.#control("BEGIN IMMEDIATE");
    } catch (error) {
      if (durable) this.#ordinary();
      throw error;
    }
  }

  /** The settings of every transaction but a durable one. */
  #ordinary(): void {
    this.db.pragma("synchronous = NORMAL");
    this.#autoCheckpoints();
  }

  /** SQLite's own checkpoints in the commit, unless the checkpointer copies the log. */
  #autoCheckpoints(): void {
    const pages = this.#checkpointer?.running ? 0 : AUTO_CHECKPOINT_PAGES;
    this.db.pragma(`wal_autocheckpoint = ${pages}`);
  }

  /**
   * Copies the write-ahead log into the database once no transaction is open, a moment after a
   * durable commit (CHECKPOINT_DELAY_MS): the answer to whoever committed has then reached them,
   * even a client in this process (the harness, a test), which could not read it while a copy of
   * a large upload held the event loop; uploads in a row share one copy.
   */
  #checkpointSoon(): void {
    if (this.#checkpoint) return;
    this.#checkpoint = setTimeout(() => {
      this.#checkpoint = undefined;
      if (!this.db.open) return this.#checkpointDone();
      if (this.db.inTransaction) return this.#checkpointSoon();
      if (this.#checkpointer?.running) {
        void this.#checkpointer.checkpoint().then(() => this.#checkpointDone());
        return;
      }
      try {
        this.db.pragma("wal_checkpoint(PASSIVE)");
      } catch {
        // Busy (another process reads or writes): the next idle turn, or the automatic one, does it.
      }
      this.#checkpointDone();
    }, CHECKPOINT_DELAY_MS);
    this.#checkpoint.unref();
  }

  #checkpointDone(): void {
    const waiters = this.#checkpointWaiters;
    this.#checkpointWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves once the checkpoint a durable commit scheduled has run (at once when none waits). */
  checkpointed(): Promise<void> {
    if (!this.#checkpoint) return Promise.resolve();
    return new Promise((resolve) => this.#checkpointWaiters.push(resolve));
  }

  /** A transaction control statement (prepared once, like every other). */
  #control(sql: string): void {
    this.statement(sql).run();
  }

  /** Undoes what was done since savepoint `name` and ends it (ROLLBACK TO alone keeps it open). */
  #undoTo(name: string): void {
    this.#control(`ROLLBACK TO ${name}`);
    this.#control(`RELEASE ${name}`);
  }

  constructor(path: string, options: SqliteConnectionOptions = {}) {
    this.db = new Database(path);
    this.#reads = new ReadCache(this.db, MAX_CACHED_READS);
    this.db.pragma("journal_mode = WAL");
    // NORMAL in WAL mode: a commit survives a process crash; only a power cut may lose the last
    // transactions, never corrupt the file.
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    this.db.pragma("foreign_keys = ON");
    // Savepoints (a store method inside a transaction) and statement journals keep the pages they
    // change in a temporary journal: in memory, not a temporary file. A sync's batch of events
    // is stored in half the time.
    this.db.pragma("temp_store = MEMORY");
    // The CLI (token management) and a running hub may write the same file.
    this.db.pragma("busy_timeout = 5000");
    this.#migrate();
    if (options.checkpointer && !this.db.memory) this.#startCheckpointer(path, options.checkpointer);
  }

  #startCheckpointer(path: string, options: true | CheckpointerOptions): void {
    const settings = options === true ? {} : options;
    this.#checkpointer = new Checkpointer(path, settings, {
      // Back to SQLite's own checkpoints in the commit.
      onFailure: () => this.db.open && this.#autoCheckpoints(),
      onLongLog: () => {
        this.#restartWanted = true;
        // Idle now (no transaction for a while): the next commit would be late.
        if (!this.db.inTransaction) this.#restartLog();
      },
    });
    // The log's file, restarted, is cut back to about the length that asks for a restart.
    this.db.pragma(`journal_size_limit = ${settings.restartBytes ?? RESTART_BYTES}`);
    this.#autoCheckpoints();
  }

  /**
   * Starts a log grown long (the checkpointer said so) again from its beginning, between two
   * transactions: the worker copies what is left of it while this thread waits (`copyAll`), and
   * this connection's next write, finding the log copied whole, writes from its start (SQLite's
   * own restart, by the writer, under its lock). Nothing is copied on this thread, and the log
   * is never truncated to nothing to grow again. Not copied whole (a reader, a slow disk): the
   * worker reports the long log again after its next copy.
   */
  #restartLog(): void {
    if (!this.#restartWanted || this.db.inTransaction || !this.#checkpointer) return;
    this.#restartWanted = false;
    this.#checkpointer.copyAll();
  }

  /** Whether the log is copied into the database by the background checkpointer now. */
  get checkpointsInBackground(): boolean {
    return this.#checkpointer?.running === true;
  }

  /**
   * Stops the background checkpointer (if any) after one last checkpoint; the commits that follow
   * checkpoint themselves again, as without one.
   */
  async stopCheckpointer(): Promise<void> {
    const checkpointer = this.#checkpointer;
    if (!checkpointer) return;
    await checkpointer.stop();
    this.#checkpointer = undefined;
    if (this.db.open) this.#autoCheckpoints();
  }

  #migrate(): void {
    const version = this.db.pragma("user_version", { simple: true }) as number;
    if (version > migrations.length) {
      throw new Error(
        `hub database schema version ${version} is newer than this cardsim understands (${migrations.length}); ` +
          "use a newer cardsim or another --dir",
      );
    }
    for (let i = version; i < migrations.length; i++) {
      const apply = this.db.transaction(() => {
        this.db.exec(migrations[i]!);
        this.db.pragma(`user_version = ${i + 1}`);
      });
      apply();
    }
  }

  /** The cached prepared statement for `sql` (the cache is bounded: filter queries vary). */
  statement(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.#statements.size >= MAX_CACHED_STATEMENTS) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  /**
   * `get`, answered from memory until a table `sql` names changes (`ReadCache`). For the lookups
   * every request or session makes (token, project, configuration); callers must not mutate the row.
   */
  cachedGet<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.#reads.get("get", sql, params, this.#dataVersion(), () => this.get<T>(sql, ...params));
  }

  /**
   * `all`, answered from memory as `cachedGet` (the environment a session reads several times);
   * callers must not mutate the rows or the array.
   */
  cachedAll<T>(sql: string, ...params: unknown[]): readonly T[] {
    return this.#reads.get("all", sql, params, this.#dataVersion(), () => this.all<T>(sql, ...params));
  }

  #undone(): void {
    this.#writes++;
    this.#reads.changedAll();
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    this.#writes++;
    this.#reads.wrote(sql);
    return this.statement(sql).run(...params);
  }

  /**
   * Changes whenever the data may have changed: a write through this connection, a rollback, or a
   * commit by another connection to the same file (SQLite's data_version).
   */
  version(): string {
    return `${this.#dataVersion()}:${this.#writes}`;
  }

  /** SQLite's data_version: another process's commit is noticed from the next turn of the event loop on. */
  #dataVersion(): number {
    // One check serves all the lookups of a request.
    if (!this.#externalChecked) {
      this.#external = this.statement("PRAGMA data_version").pluck().get() as number;
      this.#externalChecked = true;
      // A private in-memory database has no other connection whose commits to notice: read once.
      if (!this.db.memory) setImmediate(() => (this.#externalChecked = false));
    }
    return this.#external;
  }

  /**
   * Runs synchronous `work` in one transaction (inside an open one: a savepoint). For one store
   * method's statements; `gate.transaction` spans several awaited calls.
   */
  transaction<T>(work: () => T): T {
    // What better-sqlite3's `db.transaction(work)()` does, by this connection's cached statements:
    // that wrapper is built anew for each call (five functions and their properties), which cost
    // more than the savepoint itself for the small calls a session makes inside its transaction.
    const inner = this.db.inTransaction;
    this.#nested++;
    try {
      this.#control(inner ? "SAVEPOINT hub_call" : "BEGIN");
      const result = work();
      if (typeof (result as { then?: unknown } | undefined)?.then === "function")
        throw new TypeError("a SQLite transaction's work cannot return a promise");
      this.#control(inner ? "RELEASE hub_call" : "COMMIT");
      return result;
    } catch (error) {
      this.#undone();
      // SQLite may already have rolled the whole transaction back itself (after some errors).
      if (this.db.inTransaction) {
        if (inner) this.#undoTo("hub_call");
        else this.#control("ROLLBACK");
      }
      throw error;
    } finally {
      this.#nested--;
    }
  }

  /**
   * `transaction`, for work whose statements are all needed or none, and whose failure is never an
   * answer a caller acts on (storing a sync's batch of events). Inside an open transaction it runs
   * without a savepoint of its own, which would copy every page its statements change into a
   * journal: a failure part-way dooms the enclosing transaction instead (`TransactionGate.doom`),
   * which is then rolled back as a whole however its caller handles the error.
   */
  allOrNothing<T>(work: () => T): T {
    if (this.#nested > 0 || this.#frames === 0) return this.transaction(work);
    try {
      return work();
    } catch (error) {
      this.#undone();
      this.gate.doom(error);
      throw error;
    }
  }

  /** Closes at once (a checkpointer still running is ended: `stopCheckpointer` first to wait for it). */
  close(): void {
    this.#checkpointer?.terminate();
    this.#checkpointer = undefined;
    this.groupCommits(undefined);
    if (this.#checkpoint) clearTimeout(this.#checkpoint);
    this.#checkpoint = undefined;
    this.#checkpointDone();
    this.#statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** SQLite booleans. */
export const bool = (value: unknown): boolean => value === 1 || value === true;
export const int = (value: boolean): number => (value ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  return JSON.parse(text) as T;
}

/** Escapes `%`, `_` and `\` for a LIKE pattern with ESCAPE '\'. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
