import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pg from "pg";
import type { TransactionOptions } from "../HubStore.js";
import { migrate } from "./pgMigrations.js";

/** One open transaction: the outermost (holding the pool's client), or a savepoint nested in it. */
interface Frame {
  readonly client: pg.PoolClient;
  readonly parent: Frame | undefined;
  readonly depth: number;
  readonly afterCommit: (() => void)[];
  /** Store calls and nested units of this frame run one at a time on its client. */
  tail: Promise<unknown>;
  /**
   * A statement of this frame failed: PostgreSQL has aborted the transaction (up to the frame's
   * savepoint), so however the work goes on it is rolled back when it ends and this thrown.
   */
  doomed?: { readonly error: unknown };
}

/** Serialisation failures and deadlocks: the outermost transaction is run again. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;
/** How long a connection is asked for again while the server gives none (see `#connect`). */
const RECONNECT_MS = 60_000;

/**
 * The connection failed, not the statement: a socket error (it has a `syscall`), the driver's
 * word for a connection that ended, a connection exception from the server (class 08), or the
 * server shutting down or starting (57P01, 57P02, 57P03). A refusal of the statement (any other
 * SQLSTATE) or an error of the caller's own is not.
 */
function lostConnection(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? "";
    return code.startsWith("08") || ["57P01", "57P02", "57P03"].includes(code);
  }
  if ("syscall" in error) return true;
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i.test(
    message,
  );
}

/** Errors of a COMMIT whose answer was lost (see `#reconnecting`). */
const COMMIT_LOST = new WeakSet<object>();

/** Distinct statement texts prepared by name (see `#name`). */
const MAX_NAMED = 1000;

// bigint (count(*), BIGINT columns) and numeric (sum, avg) as JavaScript numbers: the hub's
// values (epoch ms, counters) are well inside 2^53.
const NUMBER_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    NUMBER_TYPES.has(oid)
      ? (text: string) => Number(text)
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/** `?` placeholders (the SQL shared with SQLite) as PostgreSQL's `$1, $2, ...`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** A row-returning query's result: rows and how many rows a write touched. */
export interface PgResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * A pool of connections to one PostgreSQL database (one pool per process), the schema migrated
 * at open. Every query is a prepared statement (named by a digest of its text). Transactions
 * span awaited store calls: the transaction's client follows the asynchronous context
 * (AsyncLocalStorage), so calls made by its work join it, and a transaction begun inside one is a
 * savepoint of it. Calls outside a transaction each take a client of the pool for the one
 * statement (or their own short transaction, see `atomic`).
 */
export class PgConnection {
  readonly #context = new AsyncLocalStorage<Frame>();
  readonly #names = new Map<string, string>();
  #closed = false;

  private constructor(
    readonly pool: pg.Pool,
    readonly onRetry: ((message: string) => void) | undefined,
  ) {}

  /**
   * Connects and migrates (a failure is thrown as it is: runtime/openHubStore words it). Later, a
   * connection the server does not give (it restarts, the network is away) is asked for again with
   * backoff for up to RECONNECT_MS, each wait reported through `onRetry`.
   */
  static async open(
    url: string,
    options: { max?: number; onRetry?: (message: string) => void } = {},
  ): Promise<PgConnection> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      types,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    });
    // A client that loses its server (a restart) says so as an "error" event, idle in the pool or
    // checked out between statements: not a crash (its next statement fails, and is run again).
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    const connection = new PgConnection(pool, options.onRetry);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  /**
   * The prepared statement's name for `text`. Filtered listings build texts by their filters: past
   * MAX_NAMED distinct texts the rest run unnamed (parsed each time) rather than each connection
   * keeping ever more statements.
   */
  #name(text: string): string | undefined {
    let name = this.#names.get(text);
    if (!name && this.#names.size < MAX_NAMED) {
      name = `h${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /** The innermost transaction the running code belongs to. */
  get #frame(): Frame | undefined {
    return this.#context.getStore();
  }

  get inTransaction(): boolean {
    return this.#frame !== undefined;
  }

  /** Runs one statement (`?` or `$n` placeholders): in the caller's transaction, else on any client. */
  async query<T>(text: string, params: readonly unknown[] = []): Promise<PgResult<T>> {
    const sql = text.includes("?") ? numbered(text) : text;
    const config = { name: this.#name(sql), text: sql, values: params as unknown[] };
    const frame = this.#frame;
    if (!frame) {
      return this.#reconnecting(async () => {
        const client = await this.#connect();
        let broken = false;
        try {
          const result = await client.query(config);
          return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
        } catch (error) {
          broken = lostConnection(error);
          throw error;
        } finally {
          client.release(broken);
        }
      });
    }
    return this.#onFrame(frame, async () => {
      try {
        const result = await frame.client.query(config);
        return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
      } catch (error) {
        frame.doomed ??= { error };
        throw error;
      }
    });
  }

  /**
   * A client of the pool. While the server gives none (it is restarting, the network is away) it
   * is asked again after 0.1, 0.2, 0.4 ... up to 5 s, for RECONNECT_MS in all: nothing has been
   * sent yet, so no write can be lost or made twice by asking again.
   */
  async #connect(): Promise<pg.PoolClient> {
    const started = Date.now();
    for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await this.pool.connect();
      } catch (error) {
        if (this.#closed || !lostConnection(error) || Date.now() - started + delay > RECONNECT_MS)
          throw error;
        this.onRetry?.(
          `hub store: lost the connection to PostgreSQL (${(error as Error).message}); trying again in ${delay} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Runs `work` when the frame's earlier calls have ended (one client runs one query at a time). */
  #onFrame<T>(frame: Frame, work: () => Promise<T>): Promise<T> {
    const run = frame.tail.then(work, work);
    frame.tail = run.catch(() => undefined);
    return run;
  }

  async get<T>(text: string, ...params: unknown[]): Promise<T | undefined> {
    return (await this.query<T>(text, params)).rows[0];
  }

  async all<T>(text: string, ...params: unknown[]): Promise<T[]> {
    return (await this.query<T>(text, params)).rows;
  }

  /** A write; how many rows it touched. */
  async run(text: string, ...params: unknown[]): Promise<number> {
    return (await this.query(text, params)).rowCount;
  }

  /**
   * Several statements of one store method as one unit: its own transaction outside one, a
   * savepoint inside one (so that a refusal part-way undoes only the method's part).
   */
  atomic<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  /** See HubStore.transaction. */
  async transaction<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const parent = this.#frame;
    if (parent) return this.#nested(parent, work);
    return this.#reconnecting(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.#outermost(work, options.durable === true);
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (!code || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) throw error;
        }
      }
    });
  }

  /**
   * Runs `attempt` again, after a backoff (0.1, 0.2, 0.4 ... up to 5 s; RECONNECT_MS in all, each
   * wait reported), when its connection was lost before anything could have committed: a plain
   * statement on a connection the server had closed (a restart), or a transaction before its
   * COMMIT was sent (the server rolled it back). A COMMIT whose answer was lost is not run again.
   */
  async #reconnecting<T>(attempt: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await attempt();
      } catch (error) {
        if (this.#closed || !lostConnection(error) || COMMIT_LOST.has(error as object)) throw error;
        if (Date.now() - started + delay > RECONNECT_MS) throw error;
        this.onRetry?.(
          `hub store: lost the connection to PostgreSQL (${(error as Error).message}); trying again in ${delay} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async #outermost<T>(work: () => Promise<T>, durable: boolean): Promise<T> {
    if (this.#closed) throw new Error("the hub store is closed");
    const client = await this.#connect();
    const frame: Frame = { client, parent: undefined, depth: 0, afterCommit: [], tail: Promise.resolve() };
    // A client whose connection failed is not given back to the pool.
    let broken = false;
    const control = (sql: string): Promise<unknown> =>
      client.query(sql).catch((error: unknown) => {
        if (lostConnection(error)) broken = true;
        throw error;
      });
    try {
      await control("BEGIN");
      // A durable commit waits for the server's disk even where synchronous_commit is off.
      if (durable) await control("SET LOCAL synchronous_commit = on");
      let result: T;
      try {
        result = await this.#context.run(frame, work);
        await frame.tail;
        if (frame.doomed) throw frame.doomed.error;
      } catch (error) {
        await frame.tail;
        await control("ROLLBACK").catch(() => (broken = true));
        throw error;
      }
      await control("COMMIT").catch((error: unknown) => {
        // Committed or not, no one can tell: never run again.
        if (typeof error === "object" && error !== null) COMMIT_LOST.add(error);
        throw error;
      });
      for (const action of frame.afterCommit) {
        try {
          this.#context.exit(action);
        } catch {
          // Actions handle their own errors; the commit stands and the other actions run.
        }
      }
      return result;
    } finally {
      client.release(broken);
    }
  }

  /** A unit inside `parent`: a savepoint, rolled back alone when its work throws. */
  async #nested<T>(parent: Frame, work: () => Promise<T>): Promise<T> {
    const depth = parent.depth + 1;
    const frame: Frame = {
      client: parent.client,
      parent,
      depth,
      afterCommit: [],
      tail: Promise.resolve(),
    };
    // Units started side by side run one after the other, each on the parent's turn.
    return this.#onFrame(parent, async () => {
      await parent.client.query(`SAVEPOINT hub_tx_${depth}`);
      let result: T;
      try {
        result = await this.#context.run(frame, work);
        await frame.tail;
        if (frame.doomed) throw frame.doomed.error;
      } catch (error) {
        await frame.tail;
        await parent.client.query(`ROLLBACK TO SAVEPOINT hub_tx_${depth}`);
        await parent.client.query(`RELEASE SAVEPOINT hub_tx_${depth}`);
        throw error;
      }
      await parent.client.query(`RELEASE SAVEPOINT hub_tx_${depth}`);
      parent.afterCommit.push(...frame.afterCommit);
      return result;
    });
  }

  /** See HubStore.afterCommit. */
  afterCommit(action: () => void): void {
    const frame = this.#frame;
    if (frame) frame.afterCommit.push(action);
    else action();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}
