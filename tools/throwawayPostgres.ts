import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * A PostgreSQL server for the tests that run the hub store on PostgreSQL: the one named by
 * CARDSIM_TEST_POSTGRES (a URL whose user may create databases), or a throwaway cluster started
 * with the server binaries (`initdb` in a temporary folder, listening on a Unix socket there only).
 * One cluster serves a whole vitest run: the first test process that needs it starts it in the
 * folder test/support/postgresCluster.ts (vitest's globalSetup) made, the others use it, and the
 * global teardown stops it (a process run outside vitest starts and stops its own). Without a
 * server the tests skip with POSTGRES_SKIP_MESSAGE; under CI=true they fail instead.
 */
export const POSTGRES_SKIP_MESSAGE =
  "PostgreSQL tests skipped: install the server (apt-get install postgresql) or set CARDSIM_TEST_POSTGRES=postgres://user:pass@host:port/db";

/** The folder globalSetup made for the run's cluster (an environment variable the workers inherit). */
export const SHARED_CLUSTER_ENV = "CARDSIM_TEST_PG_FOLDER";

const BIN_DIRS = ["/usr/local/pgsql/bin", "/opt/homebrew/bin", "/usr/local/bin"];

/** The folder holding initdb and pg_ctl, newest version first; undefined when not installed. */
export function postgresBinaries(): string | undefined {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(debian, versions[0]!, "bin");
  }
  return BIN_DIRS.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

/** Runs a server binary as an unprivileged user when this process is root (initdb refuses root). */
function runAs(bin: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const [command, argv] = root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(" ")} failed: ${result.stderr || result.stdout || result.error}`);
  }
}

/** The superuser's password of a cluster the tests start. */
export const TEST_PASSWORD = "cardsim-test";

/** Creates a cluster in `dir` (its data in dir/data, its socket in dir) and starts it; its admin URL. */
function startCluster(bin: string, dir: string): string {
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres", dir]);
  // Passwords are checked (scram), as on a real server: a test can give a wrong one.
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, `${TEST_PASSWORD}\n`, { mode: 0o644 });
  runAs(join(bin, "initdb"), [
    "-D",
    data,
    "-A",
    "scram-sha-256",
    "--pwfile",
    pwfile,
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  serverUp(bin, dir);
  return `postgres://postgres:${TEST_PASSWORD}@${encodeURIComponent(dir)}/postgres`;
}

/** Starts the server of the cluster in `dir` (made by startCluster). */
function serverUp(bin: string, dir: string): void {
  const options = `-k ${dir} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  runAs(join(bin, "pg_ctl"), [
    "-D",
    join(dir, "data"),
    "-o",
    options,
    "-w",
    "-s",
    "-l",
    join(dir, "log"),
    "start",
  ]);
}

/** Stops the server of the cluster in `dir`, its data kept. */
function serverDown(bin: string, dir: string): void {
  runAs(join(bin, "pg_ctl"), ["-D", join(dir, "data"), "-m", "fast", "-w", "-s", "stop"]);
}

/**
 * A cluster of the test's own (not the run's shared one), which it may stop and start again
 * (`down`, `up`); undefined without the server binaries. `remove` stops it and deletes it.
 */
export function privateCluster(): { url: string; down(): void; up(): void; remove(): void } | undefined {
  const bin = postgresBinaries();
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "cardsim-pg-own-"));
  const url = startCluster(bin, dir);
  return {
    url,
    down: () => serverDown(bin, dir),
    up: () => serverUp(bin, dir),
    remove: () => stopCluster(dir),
  };
}

/** Stops a cluster started in `dir` (if one was) and removes the folder. */
export function stopCluster(dir: string): void {
  const bin = postgresBinaries();
  try {
    if (bin && existsSync(join(dir, "data", "postmaster.pid"))) {
      runAs(join(bin, "pg_ctl"), ["-D", join(dir, "data"), "-m", "immediate", "-w", "-s", "stop"]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Blocks this thread for `ms` (the wait for another process's cluster, at collection time). */
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The run's cluster in `dir`: started by whichever process gets there first (it makes dir/lock),
 * its URL then in dir/url (or why it failed in dir/error) for the others.
 */
function sharedCluster(bin: string, dir: string): string {
  const urlFile = join(dir, "url");
  const errorFile = join(dir, "error");
  try {
    mkdirSync(join(dir, "lock"));
  } catch {
    for (let waited = 0; waited < 120_000; waited += 50) {
      if (existsSync(urlFile)) return readFileSync(urlFile, "utf8");
      if (existsSync(errorFile)) throw new Error(readFileSync(errorFile, "utf8"));
      pause(50);
    }
    throw new Error(`the tests' PostgreSQL cluster in ${dir} did not start within two minutes`);
  }
  try {
    const url = startCluster(bin, dir);
    writeFileSync(`${urlFile}.tmp`, url);
    renameSync(`${urlFile}.tmp`, urlFile);
    return url;
  } catch (error) {
    writeFileSync(errorFile, String(error));
    throw error;
  }
}

let url: string | undefined;

/**
 * The admin URL of the tests' server (starting the cluster on first use), or undefined when there
 * is none to be had (the caller skips with POSTGRES_SKIP_MESSAGE). Under CI=true a missing server
 * throws.
 */
export function testPostgresUrl(): string | undefined {
  const given = process.env["CARDSIM_TEST_POSTGRES"];
  if (given) return given;
  if (url) return url;
  const bin = postgresBinaries();
  if (!bin) {
    if (process.env["CI"] === "true") {
      throw new Error(`CI=true but no PostgreSQL server: ${POSTGRES_SKIP_MESSAGE}`);
    }
    return undefined;
  }
  const shared = process.env[SHARED_CLUSTER_ENV];
  if (shared && existsSync(shared)) {
    url = sharedCluster(bin, shared);
  } else {
    const own = mkdtempSync(join(tmpdir(), "cardsim-pg-"));
    url = startCluster(bin, own);
    process.once("exit", () => stopCluster(own));
  }
  return url;
}

let databases = 0;

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A new database on the tests' server; its URL. With `template` (a function preparing a database,
 * e.g. migrating it), the database is a copy of one prepared once per process (copying is much
 * faster than migrating).
 */
export async function createTestDatabase(
  adminUrl: string,
  template?: (url: string) => Promise<void>,
): Promise<string> {
  const name = `cardsim_test_${process.pid}_${++databases}`;
  let from = "";
  if (template) {
    const templateName = `cardsim_template_${process.pid}`;
    templates ??= (async () => {
      await adminQuery(adminUrl, `CREATE DATABASE ${templateName}`);
      await template(withDatabase(adminUrl, templateName));
    })();
    await templates;
    from = ` TEMPLATE ${templateName}`;
  }
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${from}`);
  return withDatabase(adminUrl, name);
}

let templates: Promise<void> | undefined;

/** `url` naming database `name` instead (a socket folder given as host stays as it is). */
export function withDatabase(url: string, name: string): string {
  const at = url.lastIndexOf("/");
  const query = url.indexOf("?", at);
  return `${url.slice(0, at + 1)}${name}${query >= 0 ? url.slice(query) : ""}`;
}

/** Drops a database made by createTestDatabase (the store using it must be closed). */
export async function dropTestDatabase(adminUrl: string, url: string): Promise<void> {
  const name = url.slice(url.lastIndexOf("/") + 1).split("?")[0]!;
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * A new, empty database on the tests' server (see testPostgresUrl), or undefined without one
 * (the caller skips with POSTGRES_SKIP_MESSAGE).
 */
export async function freshTestDatabase(): Promise<string | undefined> {
  const admin = testPostgresUrl();
  return admin === undefined ? undefined : createTestDatabase(admin);
}
