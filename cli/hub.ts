import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { pino } from "pino";
import { SystemClock } from "../runtime/SystemClock.js";
import { DEFAULT_RATE_LIMITS, parseRateLimits } from "../hub/auth/RateLimiter.js";
import { PROJECT_ROLES } from "../hub/auth/Principal.js";
import { hashSecret, newPassword, newSecret } from "../hub/auth/secrets.js";
import { bootstrapState, createPersonalAccessToken, createUser } from "../hub/bootstrap.js";
import { HubIds } from "../hub/HubIds.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN, startHub, type RunningHub } from "../runtime/startHub.js";
import type { AccessTokenRecord, ProjectRole } from "../hub/store/records.js";
import { SqliteHubStore } from "../hub/store/sqlite/SqliteHubStore.js";

const DEFAULT_DIR = "./.cardsim";

/** `30d`, `12h`, `90m`, an ISO date-time, or `never`, as an absolute expiry (ms) or null. */
export function parseExpiry(text: string, now: number): number | null {
  const t = text.trim().toLowerCase();
  if (t === "never" || t === "none") return null;
  const m = /^(\d+)\s*(m|h|d)$/.exec(t);
  if (m) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "m" | "h" | "d"];
    return now + Number(m[1]) * unit;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new Error(`--expires "${text}" is not 30d, 12h, 90m, an ISO date-time or never`);
  if (at <= now) throw new Error(`--expires ${text} is in the past`);
  return at;
}

/** Opens the hub database of a state directory that a hub has already started in. */
async function openHubStore(
  dir: string,
): Promise<{ store: SqliteHubStore; state: NonNullable<Awaited<ReturnType<typeof bootstrapState>>> }> {
  const path = join(dir, "hub.db");
  if (!existsSync(path))
    throw new Error(`no hub in ${dir}: start one there first with "cardsim hub --dir ${dir}"`);
  const store = new SqliteHubStore(path);
  const state = await bootstrapState(store);
  if (!state) {
    await store.close();
    throw new Error(`the hub in ${dir} has not finished its first start`);
  }
  return { store, state };
}

async function withStore<T>(
  dir: string,
  work: (store: SqliteHubStore, state: Awaited<ReturnType<typeof openHubStore>>["state"]) => Promise<T>,
): Promise<T> {
  const { store, state } = await openHubStore(dir);
  try {
    return await work(store, state);
  } finally {
    await store.close();
  }
}

function fail(e: unknown): never {
  process.stderr.write(`cardsim hub: ${(e as Error).message}\n`);
  process.exit(1);
}

function tokenLine(t: AccessTokenRecord, username: string, now: number): string {
  const state = t.suspended ? "suspended" : t.expires !== null && t.expires <= now ? "expired" : "active";
  const expires = t.expires === null ? "never" : new Date(t.expires).toISOString();
  const used = t.lastUsed === null ? "never" : new Date(t.lastUsed).toISOString();
  return `${t.uid}  ${state.padEnd(9)}  ${username.padEnd(22)}  expires ${expires}  last used ${used}  ${t.name}`;
}

/** What `cardsim hub` and `cardsim up` print about a running hub. */
export function describeHub(hub: RunningHub, dir: string): string {
  const c = hub.credentials;
  return [
    `cardsim hub ${hub.bootstrapped ? "created and started" : "started"} in ${dir}`,
    `  HTTP API   ${hub.url}`,
    ...(hub.tlsUrl ? [`  HTTPS API  ${hub.tlsUrl}  (trust ${c.ca_cert})`] : []),
    `  project    ${c.project_uid}`,
    `  product    ${c.product_uid}`,
    `  token      ${c.token}`,
    `  login      ${c.username} / ${c.password}`,
    `  saved in   ${hub.credentialsPath} (mode 0600)`,
    `  try: curl -H "Authorization: Bearer ${c.token}" ${hub.url}/v1/projects/${c.project_uid}/devices`,
  ].join("\n");
}

async function runHub(options: {
  dir: string;
  listen: string;
  tlsListen: string;
  rateLimit: string;
  logLevel: string;
}): Promise<void> {
  const log = pino({ level: options.logLevel, base: { service: "cardsim-hub" } }, pino.destination(2));
  const tlsListen = ["off", "none", "false"].includes(options.tlsListen.toLowerCase())
    ? false
    : options.tlsListen;
  const hub = await startHub({
    dir: options.dir,
    listen: options.listen,
    tlsListen,
    rateLimits: parseRateLimits(options.rateLimit),
    log,
    clock: new SystemClock(),
  });
  process.stdout.write(`${describeHub(hub, options.dir)}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting without waiting");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, "shutting down");
    hub
      .close()
      .then(() => {
        log.info("stopped");
        log.flush();
        process.exit(0);
      })
      .catch((e: unknown) => {
        log.error({ err: e }, "shutdown failed");
        process.exit(1);
      });
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

/** `cardsim hub` and its credential-management subcommands. */
export function registerHubCommand(program: Command): void {
  const hub = program
    .command("hub")
    .description("run the local hub (HTTP API on --listen, HTTPS on --tls-listen); manage its credentials")
    .option("--dir <D>", "state directory (database, certificates, credentials.json)", DEFAULT_DIR)
    .option("--listen <HOST:PORT>", "plain HTTP address", DEFAULT_LISTEN)
    .option("--tls-listen <HOST:PORT>", 'HTTPS address, or "off"', DEFAULT_TLS_LISTEN)
    .option(
      "--rate-limit <LIMITS>",
      'requests per billing account, e.g. "7/min,10200/day", or "off"',
      `${DEFAULT_RATE_LIMITS.perMinute}/min,${DEFAULT_RATE_LIMITS.perDay}/day`,
    )
    .option("--log-level <LEVEL>", "fatal, error, warn, info, debug or trace (logs go to stderr)", "info")
    .action((options) => runHub(options).catch(fail));

  // --dir is the hub command's option, so it may stand before or after a subcommand's name.
  const dirOf = (command: Command): string => (command.opts() as { dir: string }).dir;

  const token = hub.command("token").description("personal access tokens");
  token
    .command("create")
    .description("create a personal access token and print it (it is shown once)")
    .option("--name <NAME>", "what the token is for", "cli")
    .option("--description <TEXT>", "longer description", "")
    .option("--expires <WHEN>", "30d, 12h, 90m, an ISO date-time, or never", "never")
    .option("--user <USERNAME>", "owner of the token (default: the admin)")
    .action((o) =>
      withStore(dirOf(hub), async (store, state) => {
        const clock = new SystemClock();
        const username = o.user ?? state.username;
        const user = await store.accounts.getUserByUsername(username);
        if (!user) throw new Error(`no user ${username}`);
        const made = await createPersonalAccessToken(store, new HubIds(), clock, {
          userUid: user.uid,
          name: o.name,
          description: o.description,
          expires: parseExpiry(o.expires, clock.now()),
        });
        process.stdout.write(`${made.token}\n`);
        process.stderr.write(
          `token ${made.uid} for ${user.username}; keep it secret, it is not shown again\n`,
        );
      }).catch(fail),
    );

  token
    .command("list")
    .description("list personal access tokens (never their secrets)")
    .option("--json", "print JSON")
    .action((o) =>
      withStore(dirOf(hub), async (store) => {
        const now = Date.now();
        const users = new Map((await store.accounts.listUsers()).map((u) => [u.uid, u.username]));
        const tokens = await store.credentials.listTokens("pat");
        if (o.json) {
          const rows = tokens.map((t) => ({
            uid: t.uid,
            name: t.name,
            description: t.description,
            user: users.get(t.userUid ?? "") ?? null,
            created_at: new Date(t.created).toISOString(),
            expires_at: t.expires === null ? null : new Date(t.expires).toISOString(),
            last_used: t.lastUsed === null ? null : new Date(t.lastUsed).toISOString(),
            suspended: t.suspended,
          }));
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        for (const t of tokens)
          process.stdout.write(`${tokenLine(t, users.get(t.userUid ?? "") ?? "?", now)}\n`);
      }).catch(fail),
    );

  for (const [name, suspended, what] of [
    ["suspend", true, "suspend a token (it stops working at once)"],
    ["resume", false, "lift a token's suspension"],
  ] as const) {
    token
      .command(`${name} <uid>`)
      .description(what)
      .action((uid: string) =>
        withStore(dirOf(hub), async (store) => {
          const t = await store.credentials.getToken(uid);
          if (!t || t.kind !== "pat") throw new Error(`no personal access token ${uid}`);
          await store.credentials.setTokenSuspended(uid, suspended);
          process.stdout.write(`${uid} ${suspended ? "suspended" : "active"}\n`);
        }).catch(fail),
      );
  }

  token
    .command("delete <uid>")
    .description("delete a token (it stops working at once)")
    .action((uid: string) =>
      withStore(dirOf(hub), async (store) => {
        const t = await store.credentials.getToken(uid);
        if (!t || t.kind !== "pat") throw new Error(`no personal access token ${uid}`);
        await store.credentials.deleteToken(uid);
        process.stdout.write(`${uid} deleted\n`);
      }).catch(fail),
    );

  hub
    .command("oauth-client")
    .description("OAuth 2.0 clients (client-credentials grant at POST /oauth2/token)")
    .command("create")
    .description("create an OAuth client for a project and print its client_id and client_secret")
    .option("--project <UID>", "project the client acts in (default: the bootstrap project)")
    .option("--role <ROLE>", "viewer, developer or owner", "developer")
    .option("--name <NAME>", "what the client is for", "cli")
    .action((o) =>
      withStore(dirOf(hub), async (store, state) => {
        if (!(PROJECT_ROLES as readonly string[]).includes(o.role)) {
          throw new Error(`--role must be one of ${PROJECT_ROLES.join(", ")}`);
        }
        const projectUid = o.project ?? state.project_uid;
        if (!(await store.projects.getProject(projectUid))) throw new Error(`no project ${projectUid}`);
        const ids = new HubIds();
        const clientId = ids.uuid();
        const secret = newSecret("cardsim_client");
        await store.credentials.createOAuthClient({
          clientId,
          secretHash: hashSecret(secret),
          projectUid,
          role: o.role as ProjectRole,
          name: o.name,
          created: Date.now(),
          createdBy: state.user_uid,
        });
        process.stdout.write(
          `${JSON.stringify({ client_id: clientId, client_secret: secret, project_uid: projectUid, role: o.role }, null, 2)}\n`,
        );
      }).catch(fail),
    );

  hub
    .command("user")
    .description("hub users (for trying roles; the admin is made on first start)")
    .command("create <username>")
    .description("create a user, optionally a member of a project, and print its password")
    .option("--password <PASSWORD>", "password (default: a random one, printed)")
    .option("--project <UID>", "project to join (default: the bootstrap project)")
    .option("--role <ROLE>", "viewer, developer or owner in that project", "viewer")
    .option("--staff", "service staff (may write global descriptions)")
    .action((username: string, o) =>
      withStore(dirOf(hub), async (store, state) => {
        if (!(PROJECT_ROLES as readonly string[]).includes(o.role)) {
          throw new Error(`--role must be one of ${PROJECT_ROLES.join(", ")}`);
        }
        if (await store.accounts.getUserByUsername(username)) throw new Error(`user ${username} exists`);
        const projectUid = o.project ?? state.project_uid;
        if (!(await store.projects.getProject(projectUid))) throw new Error(`no project ${projectUid}`);
        const password = o.password ?? newPassword();
        const user = await createUser(store, new HubIds(), new SystemClock(), {
          username,
          password,
          staff: Boolean(o.staff),
          project: { uid: projectUid, role: o.role as ProjectRole },
        });
        await store.accounts.setOrgMember(state.org_uid, user.uid, "org_member");
        process.stdout.write(
          `${JSON.stringify({ username, password, project_uid: projectUid, role: o.role }, null, 2)}\n`,
        );
      }).catch(fail),
    );
}
