import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { HubStore } from "../hub/store/HubStore.js";

/**
 * Where the hub keeps its records: a SQLite file (the embedded default) or a PostgreSQL database
 * that several hub processes may share.
 */
export type StoreLocation =
  { readonly kind: "sqlite"; readonly path: string } | { readonly kind: "postgres"; readonly url: string };

/**
 * A store setting that cannot work (a malformed URL, an unreachable server, a refused login, a
 * missing database, a schema newer than this cardsim): its message is one line saying what to do.
 */
export class StoreConfigError extends Error {
  override readonly name = "StoreConfigError";
}

/** The environment variable naming the store when --store is not given. */
export const STORE_ENV = "CARDSIM_STORE";

/**
 * A store location from what `--store` (or CARDSIM_STORE) says: `postgres://user:pass@host:port/db`
 * (or `postgresql://`), `sqlite:PATH` (`sqlite::memory:` for a private in-memory database), or a
 * directory, whose `hub.db` is the database.
 */
export function parseStoreLocation(text: string): StoreLocation {
  const value = text.trim();
  if (value === "")
    throw new StoreConfigError(
      "--store is empty: give postgres://user:pass@host:port/db, sqlite:PATH or a directory",
    );
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (url.pathname.replace(/^\//, "") === "") throw new Error("no database");
    } catch {
      throw new StoreConfigError(
        `--store ${redact(value)} is not a PostgreSQL URL: write postgres://user:pass@host:port/database`,
      );
    }
    return { kind: "postgres", url: value };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new StoreConfigError(
      `--store ${redact(value)}: unknown kind of store; give postgres://user:pass@host:port/db, sqlite:PATH or a directory`,
    );
  }
  if (value.startsWith("sqlite:")) {
    const path = value.slice("sqlite:".length);
    if (path === "")
      throw new StoreConfigError("--store sqlite: names no file: write sqlite:PATH or sqlite::memory:");
    return { kind: "sqlite", path: path === ":memory:" ? path : resolve(path) };
  }
  return { kind: "sqlite", path: join(resolve(value), "hub.db") };
}

/** The location as it may be shown (a URL's password hidden). */
export function describeStoreLocation(location: StoreLocation): string {
  return location.kind === "postgres" ? redact(location.url) : `sqlite:${location.path}`;
}

/** A URL with its password replaced by `***`. */
function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, "$1***@");
}

/** Where a PostgreSQL URL points, for messages: `host:port/database`. */
function serverOf(url: string): { where: string; user: string; database: string } {
  const parsed = new URL(url);
  const host = decodeURIComponent(parsed.hostname || "localhost");
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  return {
    where: `${host}:${parsed.port || "5432"}`,
    user: decodeURIComponent(parsed.username || "(the current user)"),
    database,
  };
}

/** PostgreSQL's refusal of a connection or a migration in the user's words; anything else as it is. */
export function postgresFailure(error: unknown, url: string): unknown {
  if (error instanceof StoreConfigError) return error;
  if (error instanceof Error && error.name === "SchemaTooNewError")
    return new StoreConfigError(error.message);
  const { where, user, database } = serverOf(url);
  const code = (error as { code?: string }).code;
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ECONNREFUSED":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENOENT":
      return new StoreConfigError(
        `cannot reach the PostgreSQL server at ${where} (${code}): start it, or fix the host and port in --store`,
      );
    case "28P01":
    case "28000":
      return new StoreConfigError(
        `PostgreSQL at ${where} refused user ${user} (${detail}): fix the user and password in --store`,
      );
    case "3D000":
      return new StoreConfigError(
        `PostgreSQL database "${database}" does not exist at ${where}: create it (createdb ${database}) or name another in --store`,
      );
    case "42501":
      return new StoreConfigError(
        `PostgreSQL user ${user} may not create the hub's tables in "${database}" at ${where} (${detail}): grant it CREATE on the database or use its owner`,
      );
  }
  if (/timeout/i.test(detail)) {
    return new StoreConfigError(
      `the PostgreSQL server at ${where} did not answer in time: start it, or fix the host and port in --store`,
    );
  }
  return error;
}

/**
 * Opens (creating and migrating as needed) the hub store at `location`: a location, what
 * `--store` says (see parseStoreLocation), or a state directory. Bad settings throw
 * StoreConfigError, one line saying what to do. `checkpointer`: a SQLite file is checkpointed by a
 * worker thread (a hub serving devices; see SqliteConnection). `onRetry` is told when a server store asks again
 * for a connection it lost (it retries with backoff).
 */
export async function openHubStore(
  location: string | StoreLocation,
  options: {
    onRetry?: (message: string) => void;
    checkpointer?: boolean;
    /** A SQLite file's transactions of one event-loop turn commit together (`groupCommits`). */
    turnCommits?: boolean;
  } = {},
): Promise<HubStore> {
  const where = typeof location === "string" ? parseStoreLocation(location) : location;
  if (where.kind === "postgres") {
    const { PgHubStore } = await import("../hub/store/postgres/PgHubStore.js");
    try {
      return await PgHubStore.open(where.url, options.onRetry ? { onRetry: options.onRetry } : {});
    } catch (error) {
      throw postgresFailure(error, where.url);
    }
  }
  const { SqliteHubStore } = await import("../hub/store/sqlite/SqliteHubStore.js");
  if (where.path !== ":memory:") await mkdir(dirname(where.path), { recursive: true, mode: 0o700 });
  try {
    const store = new SqliteHubStore(where.path, { checkpointer: options.checkpointer === true });
    if (options.turnCommits && where.path !== ":memory:") store.groupCommits({ eventLoopTurn: true });
    return store;
  } catch (error) {
    if (error instanceof Error && /newer than this cardsim/.test(error.message)) {
      throw new StoreConfigError(error.message);
    }
    throw error;
  }
}
