import { Option, type Command } from "commander";
import type { Logger } from "pino";
import type { RateLimits } from "../hub/auth/RateLimiter.js";
import { HOSTED_RATE_LIMITS, parseRateLimits } from "../hub/auth/RateLimiter.js";
import { PROJECT_ROLES } from "../hub/auth/Principal.js";
import { DEFAULT_HELLO_LIMITS, parseHelloLimits, type HelloLimits } from "../hub/sync/HelloThrottle.js";
import type { DeviceAuth } from "../hub/sync/SyncService.js";
import type { RouteTargetPolicy } from "../hub/routing/RouteTargets.js";
import type { AccessTokenRecord, ProjectRole } from "../hub/store/records.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN } from "../runtime/hubDefaults.js";
import type { ListenError, RunningHub, StartHubOptions } from "../runtime/startHub.js";
import { CliError, listenFailure } from "./CliError.js";
import { addLogOptions, type LogOptions } from "./options.js";
import { onShutdown } from "./shutdown.js";
import { STORE_HELP, storeFailure, storeSetting, withStore } from "./hubStore.js";

// The hub (fastify, SQLite) is loaded when a command runs, not for --help.

const DEFAULT_DIR = "./.cardsim";

/** `--rate-limit`: off, hosted, or N/min,N/day; a mistake is said in one line. */
export function parseRateLimitOption(text: string): RateLimits | false {
  try {
    return parseRateLimits(text);
  } catch (error) {
    throw new CliError(`--rate-limit: ${(error as Error).message}`);
  }
}

/** `--device-auth`: tofu or pinned. */
export function parseDeviceAuthOption(text: string): DeviceAuth {
  const mode = text.trim().toLowerCase();
  if (mode !== "tofu" && mode !== "pinned") {
    throw new CliError(
      `--device-auth: use tofu (a device's first key is kept) or pinned (only devices whose key was pinned), not "${text}"`,
    );
  }
  return mode;
}

/** `--hello-limit`: off, or hellos a minute per device and per source address. */
export function parseHelloLimitOption(text: string): HelloLimits | false {
  try {
    return parseHelloLimits(text);
  } catch (error) {
    throw new CliError(`--hello-limit: ${(error as Error).message}`);
  }
}

const DEVICE_AUTH_HELP =
  "whom the device sync lets in: tofu (the default: a device's first session keeps its key) or pinned (only devices whose key was pinned with PUT /v1/projects/{projectUID}/devices/{deviceUID}/public-key; cardsim module --print-key prints it)";
const HELLO_LIMIT_HELP = `sync hellos answered a minute per device (from one address) and per source address, like "${DEFAULT_HELLO_LIMITS.perDevice}/min,${DEFAULT_HELLO_LIMITS.perSource}/min" (the default), or off`;
/** `--route-targets`: any or public-only. */
export function parseRouteTargets(text: string): RouteTargetPolicy {
  const t = text.trim().toLowerCase();
  if (t === "any" || t === "public-only") return t;
  throw new CliError(`--route-targets "${text}" is not any or public-only`);
}

/** A whole number of at least 0 for `flag` (0: no limit). */
function parseCount(flag: string): (text: string) => number {
  return (text) => {
    const n = Number(text.trim());
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
      throw new CliError(`${flag} "${text}" is not a whole number (0 for no limit)`);
    return n;
  };
}

/** What the banner says of the route target policy. */
export function describeRouteTargets(policy: RouteTargetPolicy): string {
  return policy === "any"
    ? "any address but this hub's own API (route targets: any; --route-targets public-only for a shared hub)"
    : "public addresses only (route targets: public-only; no loopback, private, link-local or metadata addresses)";
}

const RATE_LIMIT_HELP = `API requests per billing account: off, hosted (${HOSTED_RATE_LIMITS.perMinute}/min and ${HOSTED_RATE_LIMITS.perDay}/day, as the hosted service), or like "60/min,5000/day"`;

/** The `--listen` and `--tls-listen` flags that chose the hub's addresses. */
export interface HubListenFlags {
  readonly listen: string;
  readonly tlsListen: string;
}

/**
 * The hub's options with its addresses checked (`off` turns HTTPS off); a wrong one is said
 * naming its flag.
 */
export async function hubStartOptions(
  options: Omit<StartHubOptions, "listen" | "tlsListen"> & { listen: string; tlsListen: string },
  flags: HubListenFlags,
): Promise<StartHubOptions> {
  const { parseHostPort } = await import("../hub/HostPort.js");
  const off = ["off", "none", "false"].includes(options.tlsListen.toLowerCase());
  for (const [flag, value] of [
    [flags.listen, options.listen],
    [flags.tlsListen, off ? undefined : options.tlsListen],
  ] as const) {
    if (value === undefined) continue;
    try {
      parseHostPort(value, flag);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
  }
  const store = await storeSetting(typeof options.store === "string" ? options.store : undefined);
  return {
    ...options,
    ...(store !== undefined ? { store } : {}),
    tlsListen: off ? false : options.tlsListen,
  };
}

/** The hub could not listen: an address in use or not this machine's, naming the flag. */
export function hubFailure(error: unknown, flags: HubListenFlags): unknown {
  if (!(error instanceof Error) || error.name !== "ListenError") return storeFailure(error);
  const failed = error as ListenError;
  return listenFailure(failed, {
    flag: failed.server === "http" ? flags.listen : flags.tlsListen,
    host: failed.host,
    port: failed.port,
  });
}

/**
 * Starts the hub for `cardsim hub`; an address in use or not this machine's is the user's to
 * fix, said naming the flag that chose it.
 */
export async function startHubFor(
  options: Omit<StartHubOptions, "listen" | "tlsListen"> & { listen: string; tlsListen: string },
  flags: HubListenFlags,
): Promise<RunningHub> {
  const { startHub } = await import("../runtime/startHub.js");
  const hubOptions = await hubStartOptions(options, flags);
  return startHub(hubOptions).catch((error: unknown) => {
    throw hubFailure(error, flags);
  });
}

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
    throw new CliError(`--expires "${text}" is not 30d, 12h, 90m, an ISO date-time or never`);
  if (at <= now) throw new CliError(`--expires ${text} is in the past: give a later time`);
  return at;
}

function tokenLine(t: AccessTokenRecord, username: string, now: number): string {
  const state = t.suspended ? "suspended" : t.expires !== null && t.expires <= now ? "expired" : "active";
  const expires = t.expires === null ? "never" : new Date(t.expires).toISOString();
  const used = t.lastUsed === null ? "never" : new Date(t.lastUsed).toISOString();
  return `${t.uid}  ${state.padEnd(9)}  ${username.padEnd(22)}  expires ${expires}  last used ${used}  ${t.name}`;
}

/** The rate limit in force, as the banner says it. */
export function describeRateLimits(limits: RateLimits | false): string {
  if (!limits) return "off (--rate-limit hosted emulates the hosted service's limits)";
  const hosted =
    limits.perMinute === HOSTED_RATE_LIMITS.perMinute && limits.perDay === HOSTED_RATE_LIMITS.perDay;
  return `${limits.perMinute}/min and ${limits.perDay}/day per billing account${hosted ? " (hosted)" : ""}`;
}

/** Whom the device sync lets in, as the banner says it. */
export function describeDeviceAuth(mode: DeviceAuth): string {
  return mode === "pinned"
    ? "pinned (only devices whose key was pinned through the API)"
    : "tofu (a device's first session keeps its key; --device-auth pinned for a shared hub)";
}

/**
 * What `cardsim hub` and `cardsim up` print about a running hub. The password stays in the
 * credentials file (the token is shown: the curl example needs it).
 */
export function describeHub(hub: RunningHub, dir: string): string {
  const c = hub.credentials;
  return [
    `cardsim hub ${hub.bootstrapped ? "created and started" : "started"} in ${dir}`,
    `  HTTP API     ${hub.url}`,
    ...(hub.tlsUrl ? [`  HTTPS API    ${hub.tlsUrl}  (trust ${c.ca_cert})`] : []),
    `  project      ${c.project_uid}`,
    `  product      ${c.product_uid}`,
    `  token        ${c.token}`,
    `  login        ${c.username} (password in the credentials file)`,
    `  credentials  ${hub.credentialsPath} (mode 0600)`,
    `  store        ${hub.storeLocation}`,
    `  rate limit   ${describeRateLimits(hub.rateLimits)}`,
    `  device auth  ${describeDeviceAuth(hub.deviceAuth)}`,
    `  routes to    ${describeRouteTargets(hub.routeTargets)}`,
    `  try: curl -H "Authorization: Bearer ${c.token}" ${hub.url}/v1/projects/${c.project_uid}/devices`,
  ].join("\n");
}

/**
 * One line per session (when it ends) and per route delivery attempt in the hub's log, at info:
 * what `cardsim hub` and `cardsim up` show at the default level. Returns the unsubscribe.
 */
export async function logHubActivity(hub: RunningHub, log: Logger): Promise<() => void> {
  const { feedText } = await import("../hub/feed/feedLines.js");
  return hub.services.feed.subscribe((item) => {
    if (
      (item.kind === "session" && item.phase === "end") ||
      item.kind === "delivery" ||
      item.kind === "dfu"
    ) {
      log.info({ device: item.deviceUid, project: item.projectUid }, feedText(item).replace(/ {2,}/, " "));
    }
  });
}

interface HubCommandOptions extends LogOptions {
  dir: string;
  store?: string;
  listen: string;
  tlsListen: string;
  rateLimit: RateLimits | false;
  deviceAuth: DeviceAuth;
  helloLimit?: HelloLimits | false;
  routeTargets?: RouteTargetPolicy;
  routeLogKeep: number;
  routeLogDays: number;
}

async function runHub(options: HubCommandOptions): Promise<void> {
  const [{ createLogger }, { SystemClock }] = await Promise.all([
    import("../runtime/logging.js"),
    import("../runtime/SystemClock.js"),
  ]);
  const log = createLogger({ level: options.logLevel, format: options.logFormat, name: "hub" });
  const hub = await startHubFor(
    {
      dir: options.dir,
      ...(options.store !== undefined ? { store: options.store } : {}),
      listen: options.listen,
      tlsListen: options.tlsListen,
      rateLimits: options.rateLimit,
      deviceAuth: options.deviceAuth,
      ...(options.helloLimit !== undefined ? { helloLimits: options.helloLimit } : {}),
      ...(options.routeTargets ? { routeTargets: options.routeTargets } : {}),
      routeLogRetention: { keepPerRoute: options.routeLogKeep, maxAgeMs: options.routeLogDays * 86_400_000 },
      log,
      clock: new SystemClock(),
    },
    { listen: "--listen", tlsListen: "--tls-listen" },
  );
  await logHubActivity(hub, log);
  onShutdown(
    () => hub.close(),
    () =>
      `cardsim hub: stopped the hub at ${hub.url}; its state is in ${options.dir} (hub.db, credentials.json)`,
  );
  process.stdout.write(`${describeHub(hub, options.dir)}\n`);
}

/** `cardsim hub` and its credential-management subcommands. */
export function registerHubCommand(program: Command): void {
  const hub = program
    .command("hub")
    .description("run the local hub (HTTP API on --listen, HTTPS on --tls-listen); manage its credentials")
    .option("--dir <D>", "state directory (database, certificates, credentials.json)", DEFAULT_DIR)
    .option("--store <URL>", STORE_HELP)
    .option("--listen <HOST:PORT>", "plain HTTP address", DEFAULT_LISTEN)
    .option("--tls-listen <HOST:PORT>", 'HTTPS address, or "off"', DEFAULT_TLS_LISTEN)
    .addOption(
      new Option("--rate-limit <LIMITS>", RATE_LIMIT_HELP)
        .argParser(parseRateLimitOption)
        .default(false, "off"),
    )
    .option("--device-auth <MODE>", DEVICE_AUTH_HELP, parseDeviceAuthOption, "tofu" as DeviceAuth)
    .option("--hello-limit <LIMITS>", HELLO_LIMIT_HELP, parseHelloLimitOption)
    .option(
      "--route-targets <POLICY>",
      "addresses routes may reach: any (all but the hub's own API) or public-only; default any on a loopback-only hub, public-only otherwise",
      parseRouteTargets,
    )
    .option(
      "--route-log-keep <N>",
      "route logs kept per route, newest first (0: no limit)",
      parseCount("--route-log-keep"),
      1000,
    )
    .option(
      "--route-log-days <D>",
      "days route logs are kept, on the hub clock (0: no limit)",
      parseCount("--route-log-days"),
      30,
    );
  addLogOptions(hub).action((options: HubCommandOptions) => runHub(options));

  // --dir and --store are the hub command's options: they may stand before or after a subcommand's name.

  const token = hub.command("token").description("personal access tokens");
  token
    .command("create")
    .description("create a personal access token and print it (it is shown once)")
    .option("--name <NAME>", "what the token is for", "cli")
    .option("--description <TEXT>", "longer description", "")
    .option("--expires <WHEN>", "30d, 12h, 90m, an ISO date-time, or never", "never")
    .option("--user <USERNAME>", "owner of the token (default: the admin)")
    .action((o) =>
      withStore(hub, async (store, state) => {
        const [{ SystemClock }, { HubIds }, { createPersonalAccessToken }] = await Promise.all([
          import("../runtime/SystemClock.js"),
          import("../hub/HubIds.js"),
          import("../hub/bootstrap.js"),
        ]);
        const clock = new SystemClock();
        const username = o.user ?? state.username;
        const user = await store.accounts.getUserByUsername(username);
        if (!user) throw new CliError(`no user ${username} in this hub: see "cardsim hub user create"`);
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
      }),
    );

  token
    .command("list")
    .description("list personal access tokens (never their secrets)")
    .option("--json", "print JSON")
    .action((o) =>
      withStore(hub, async (store) => {
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
      }),
    );

  for (const [name, suspended, what] of [
    ["suspend", true, "suspend a token (it stops working at once)"],
    ["resume", false, "lift a token's suspension"],
  ] as const) {
    token
      .command(`${name} <uid>`)
      .description(what)
      .action((uid: string) =>
        withStore(hub, async (store) => {
          const t = await store.credentials.getToken(uid);
          if (!t || t.kind !== "pat")
            throw new CliError(`no personal access token ${uid}: "cardsim hub token list" shows them`);
          await store.credentials.setTokenSuspended(uid, suspended);
          process.stdout.write(`${uid} ${suspended ? "suspended" : "active"}\n`);
        }),
      );
  }

  token
    .command("delete <uid>")
    .description("delete a token (it stops working at once)")
    .action((uid: string) =>
      withStore(hub, async (store) => {
        const t = await store.credentials.getToken(uid);
        if (!t || t.kind !== "pat")
          throw new CliError(`no personal access token ${uid}: "cardsim hub token list" shows them`);
        await store.credentials.deleteToken(uid);
        process.stdout.write(`${uid} deleted\n`);
      }),
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
      withStore(hub, async (store, state) => {
        if (!(PROJECT_ROLES as readonly string[]).includes(o.role)) {
          throw new CliError(`--role must be one of ${PROJECT_ROLES.join(", ")}`);
        }
        const projectUid = o.project ?? state.project_uid;
        if (!(await store.projects.getProject(projectUid)))
          throw new CliError(`no project ${projectUid} in this hub: leave out --project for the local one`);
        const [{ HubIds }, { hashSecret, newSecret }] = await Promise.all([
          import("../hub/HubIds.js"),
          import("../hub/auth/secrets.js"),
        ]);
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
      }),
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
      withStore(hub, async (store, state) => {
        if (!(PROJECT_ROLES as readonly string[]).includes(o.role)) {
          throw new CliError(`--role must be one of ${PROJECT_ROLES.join(", ")}`);
        }
        if (await store.accounts.getUserByUsername(username))
          throw new CliError(`user ${username} exists already: choose another name`);
        const projectUid = o.project ?? state.project_uid;
        if (!(await store.projects.getProject(projectUid)))
          throw new CliError(`no project ${projectUid} in this hub: leave out --project for the local one`);
        const [{ HubIds }, { newPassword }, { createUser }, { SystemClock }] = await Promise.all([
          import("../hub/HubIds.js"),
          import("../hub/auth/secrets.js"),
          import("../hub/bootstrap.js"),
          import("../runtime/SystemClock.js"),
        ]);
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
      }),
    );
}
