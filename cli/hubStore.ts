import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import type { BootstrapState } from "../hub/bootstrap.js";
import type { HubStore } from "../hub/store/HubStore.js";
import { CliError } from "./CliError.js";

// The hub's store as the command line names it (--store, CARDSIM_STORE, --dir), for `cardsim hub`,
// `cardsim up` and the hub's token, user and OAuth client commands.

export const STORE_HELP =
  "where the hub keeps its records: postgres://user:pass@host:port/db, sqlite:PATH, or a directory (default: --dir's hub.db; also CARDSIM_STORE)";

/**
 * The store `--store` (or, without it, CARDSIM_STORE) names, checked; undefined for the default
 * (the state directory's hub.db). A malformed one is said in one line.
 */
export async function storeSetting(flag: string | undefined): Promise<string | undefined> {
  const value = flag ?? process.env["CARDSIM_STORE"];
  if (value === undefined || value === "") return undefined;
  const { parseStoreLocation } = await import("../runtime/openHubStore.js");
  try {
    parseStoreLocation(value);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return value;
}

/** A store that cannot be opened, in the user's words (StoreConfigError is one line already). */
export function storeFailure(error: unknown): unknown {
  return error instanceof Error && error.name === "StoreConfigError" ? new CliError(error.message) : error;
}

/**
 * Opens the hub store a hub has already started on: the one `store` names (--store or
 * CARDSIM_STORE), else the state directory's hub.db.
 */
async function openStartedStore(
  dir: string,
  store: string | undefined,
): Promise<{ store: HubStore; state: BootstrapState }> {
  const where = store ?? dir;
  if (store === undefined && !existsSync(join(dir, "hub.db")))
    throw new CliError(`no hub in ${dir}: start one there first with "cardsim hub --dir ${dir}"`);
  const [{ openHubStore }, { bootstrapState }] = await Promise.all([
    import("../runtime/openHubStore.js"),
    import("../hub/bootstrap.js"),
  ]);
  const opened = await openHubStore(store ?? { kind: "sqlite", path: join(dir, "hub.db") }).catch(
    (error: unknown) => {
      throw storeFailure(error);
    },
  );
  const state = await bootstrapState(opened);
  if (!state) {
    await opened.close();
    throw new CliError(
      `the hub in ${where} has not finished its first start: start it once with "cardsim hub${store ? ` --store ${store}` : ` --dir ${dir}`}"`,
    );
  }
  return { store: opened, state };
}

export async function withStore<T>(
  hub: Command,
  work: (store: HubStore, state: BootstrapState) => Promise<T>,
): Promise<T> {
  const { dir, store: flag } = hub.opts() as { dir: string; store?: string };
  const { store, state } = await openStartedStore(dir, await storeSetting(flag));
  try {
    return await work(store, state);
  } finally {
    await store.close();
  }
}
