import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { loadSecretKey } from "./secretKey.js";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../core/Clock.js";
import { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN } from "./hubDefaults.js";
import { HubApi, injectedInto } from "./HubApi.js";
import { SeededNodeCrypto } from "./SeededNodeCrypto.js";
import { SystemClock } from "./SystemClock.js";
import type { HubServices } from "../hub/HubServices.js";
import type { RateLimits } from "../hub/auth/RateLimiter.js";
import type { HelloLimits } from "../hub/sync/HelloThrottle.js";
import type { DeviceAuth } from "../hub/sync/SyncService.js";
import { bootstrapHub, bootstrapState, reissueAdminSecrets, type AdminPassword } from "../hub/bootstrap.js";
import { buildHubApp, hubClientErrorHandler } from "../hub/HubApp.js";
import { HubIds } from "../hub/HubIds.js";
import { type HostPort, parseHostPort, urlHost } from "../hub/HostPort.js";
import { classifyAddress } from "../hub/routing/addressClass.js";
import type { ListeningAddress, RouteTargetPolicy } from "../hub/routing/RouteTargets.js";
import type { RouteLogRetention } from "../hub/store/RouteStore.js";
import type { HubStore } from "../hub/store/HubStore.js";
import {
  describeStoreLocation,
  openHubStore,
  parseStoreLocation,
  type StoreLocation,
} from "./openHubStore.js";
import { CertificateAuthority, certificateCovers } from "../hub/tls/CertificateAuthority.js";

export { DEFAULT_LISTEN, DEFAULT_TLS_LISTEN } from "./hubDefaults.js";

/** The contents of `D/credentials.json` (DESIGN: command-line contract). */
export interface HubCredentials {
  hub_url: string;
  hub_tls_url: string | null;
  ca_cert: string | null;
  project_uid: string;
  product_uid: string;
  token: string;
  username: string;
  password: string;
}

export interface StartHubOptions {
  /** State directory: hub.db, tls/, credentials.json. Created if missing. */
  dir: string;
  /** Plain HTTP `HOST:PORT` (default 127.0.0.1:7480; port 0 picks a free port). */
  listen?: string;
  /** HTTPS `HOST:PORT` (default 127.0.0.1:7443), or false for none. */
  tlsListen?: string | false;
  clock?: Clock;
  /** pino logger for requests and faults; omitted or false logs nothing. */
  log?: Logger | false;
  /** Per-billing-account limits (`HOSTED_RATE_LIMITS` emulates the hosted service); default none. */
  rateLimits?: RateLimits | false;
  ids?: HubIds;
  /**
   * Where the hub's database lives: `file` (default, `dir/hub.db`, durable, survives restarts) or
   * `memory` (nothing persisted: ephemeral worlds on a fake clock, where a commit's fsync would be
   * most of a sync's cost). `dir` still holds the TLS material and credentials.
   */
  database?: "file" | "memory";
  /**
   * Where the hub keeps its records instead (runtime/openHubStore: a postgres:// URL, sqlite:PATH
   * or a directory); `dir` still holds the TLS material and credentials.
   */
  store?: string | StoreLocation;
  /**
   * Whom the device sync lets in: `tofu` (default: trust on first use, a device's first key is
   * kept) or `pinned` (only devices whose key was pinned through the API).
   */
  deviceAuth?: DeviceAuth;
  /** Hellos the device sync answers per device and source address (default generous); false: none. */
  helloLimits?: HelloLimits | false;
  /**
   * Which addresses routes (http, proxy, mqtt) may reach: `any` (every address but the hub's own
   * API) or `public-only` (public addresses only). Default: `any` for a hub listening on loopback
   * only, `public-only` for one listening beyond it.
   */
  routeTargets?: RouteTargetPolicy;
  /** Route logs kept (default: the newest 1,000 per route, 30 days; 0 in a field: no limit). */
  routeLogRetention?: Partial<RouteLogRetention>;
  /**
   * The admin's password at first start: a new random one (default), or one hashed beforehand
   * (a test making many hubs pays for one scrypt hash, not one per hub).
   */
  adminPassword?: AdminPassword;
}

/**
 * A hub serving its API: `url` (and `tlsUrl`), the credentials it wrote, and its REST API in
 * process (HubApi: `request`, the helpers; `listen()` gives its own URL and token).
 */
export interface RunningHub extends HubApi {
  readonly url: string;
  readonly tlsUrl: string | null;
  readonly credentials: HubCredentials;
  readonly credentialsPath: string;
  /** True when this start created the admin, project and token. */
  readonly bootstrapped: boolean;
  /** The API's per-billing-account limits in force, false when there are none. */
  readonly rateLimits: RateLimits | false;
  /** Whom the device sync lets in (`tofu` or `pinned`). */
  readonly deviceAuth: DeviceAuth;
  /** The route target policy in force. */
  readonly routeTargets: RouteTargetPolicy;
  readonly store: HubStore;
  /** Where the store is, as it may be shown (a URL's password hidden). */
  readonly storeLocation: string;
  readonly app: FastifyInstance;
  readonly services: HubServices;
  /** Stops listening, finishes in-flight requests, closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Writes a file readable by its owner only, atomically (temp file, then rename): a reader finds
 * the old file or the whole new one. The temp file is made afresh (`wx`: never through a link or a
 * file left there).
 */
async function writePrivateFile(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await rm(temp, { force: true });
  await writeFile(temp, text, { mode: 0o600, flag: "wx" });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Holds the requests that arrive before `open()`: the servers listen (their ports are needed for
 * credentials.json) but answer nothing until the file is written, so a client that polls the
 * port finds the file complete once it gets an answer. `fail()` answers the held ones 503.
 */
class RequestGate {
  #open = false;
  #held: [IncomingMessage, ServerResponse, RequestHandler][] = [];

  wrap(handler: RequestHandler): RequestHandler {
    return (request, response) => {
      if (this.#open) handler(request, response);
      else this.#held.push([request, response, handler]);
    };
  }

  open(): void {
    this.#open = true;
    const held = this.#held.splice(0);
    for (const [request, response, handler] of held) handler(request, response);
  }

  fail(): void {
    for (const [, response] of this.#held.splice(0)) {
      if (response.headersSent) continue;
      response.writeHead(503, { "content-type": "application/json; charset=utf-8", connection: "close" });
      response.end(
        `${JSON.stringify({ err: "the hub failed to start", code: 503, status: "Service Unavailable" })}\n`,
      );
    }
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The CA (made once) and a server certificate covering `hosts` (re-issued when it does not). */
async function tlsMaterial(
  dir: string,
  hosts: string[],
  now: number,
): Promise<{ key: string; cert: string; caPath: string }> {
  const tlsDir = join(dir, "tls");
  await mkdir(tlsDir, { recursive: true, mode: 0o700 });
  const caPath = join(tlsDir, "ca.pem");
  const caKeyPath = join(tlsDir, "ca-key.pem");
  const certPath = join(tlsDir, "server.pem");
  const keyPath = join(tlsDir, "server-key.pem");
  const caCert = await readText(caPath);
  const caKey = await readText(caKeyPath);
  let ca: CertificateAuthority;
  let fresh = false;
  if (caCert && caKey) {
    ca = await CertificateAuthority.load({ cert: caCert, key: caKey });
  } else {
    ca = await CertificateAuthority.create(now);
    await writePrivateFile(caKeyPath, ca.pem.key);
    await writeFile(caPath, ca.pem.cert, { mode: 0o644 });
    fresh = true;
  }
  const cert = await readText(certPath);
  const key = await readText(keyPath);
  if (!fresh && cert && key && certificateCovers(cert, hosts, now)) return { cert, key, caPath };
  const issued = await ca.issueServerCertificate(hosts, now);
  await writePrivateFile(keyPath, issued.key);
  await writeFile(certPath, issued.cert, { mode: 0o644 });
  return { ...issued, caPath };
}

/** The hub could not listen where it was told to (address in use, not this machine's, no permission). */
export class ListenError extends Error {
  override readonly name = "ListenError";
  readonly code: string | undefined;

  constructor(
    /** Which of the hub's servers: the plain HTTP API or the HTTPS one. */
    readonly server: "http" | "https",
    readonly host: string,
    readonly port: number,
    cause: unknown,
  ) {
    super(`cannot listen on ${host}:${port}: ${(cause as Error).message}`, { cause });
    this.code = (cause as NodeJS.ErrnoException).code;
  }
}

function listenOn(
  server: HttpServer | HttpsServer,
  host: string,
  port: number,
  which: "http" | "https",
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(new ListenError(which, host, port, error));
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** True for an address only this machine reaches: loopback literals and localhost names. */
function loopbackOnly(host: string): boolean {
  const h = host.toLowerCase();
  return classifyAddress(h) === "loopback" || h === "localhost" || h.endsWith(".localhost");
}

/** `any` for a hub listening on loopback only, `public-only` for one others can reach. */
export function defaultRouteTargets(listen: HostPort, tlsListen: HostPort | undefined): RouteTargetPolicy {
  return loopbackOnly(listen.host) && (!tlsListen || loopbackOnly(tlsListen.host)) ? "any" : "public-only";
}

/**
 * Starts the hub: opens (or creates) `dir/hub.db`, bootstraps it on first start, serves the HTTP
 * API on `listen` and, with a certificate from its own CA, on `tlsListen`, and writes
 * `dir/credentials.json` (atomically, mode 0600) before it answers any request on either port:
 * what arrives earlier waits for it. `cardsim hub` and `cardsim up` both start it through here.
 */
export async function startHub(options: StartHubOptions): Promise<RunningHub> {
  const clock = options.clock ?? new SystemClock();
  const ids = options.ids ?? new HubIds();
  const listen = parseHostPort(options.listen ?? DEFAULT_LISTEN, "--listen");
  const tlsListen =
    options.tlsListen === false
      ? undefined
      : parseHostPort(options.tlsListen ?? DEFAULT_TLS_LISTEN, "--tls-listen");
  const routeTargets = options.routeTargets ?? defaultRouteTargets(listen, tlsListen);
  // The hub's own addresses, known once it listens: routes may not point at them.
  const listening: ListeningAddress[] = [];
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const location =
    typeof options.store === "string"
      ? parseStoreLocation(options.store)
      : (options.store ?? {
          kind: "sqlite" as const,
          path: options.database === "memory" ? ":memory:" : join(options.dir, "hub.db"),
        });
  const log = options.log;
  // A hub serving devices: its SQLite commits only append to the log, a worker thread copies it.
  // Its transactions of one event-loop turn (the requests of several sessions) commit together:
  // each answered once its group is stored, an idle hub as soon as before (docs/hub.md).
  const store = await openHubStore(location, {
    checkpointer: true,
    turnCommits: true,
    ...(log ? { onRetry: (message: string) => log.warn(message) } : {}),
  });

  let httpServer: HttpServer | undefined;
  let httpsServer: HttpsServer | undefined;
  let app: FastifyInstance | undefined;
  // Nothing is answered until credentials.json is written (it names the ports listened on).
  const gate = new RequestGate();
  try {
    const tls = tlsListen
      ? await tlsMaterial(
          options.dir,
          [
            "localhost",
            "127.0.0.1",
            "::1",
            ...(["0.0.0.0", "::"].includes(tlsListen.host) ? [hostname()] : [tlsListen.host]),
          ],
          clock.now(),
        )
      : undefined;

    let publicUrl = "";
    const built = await buildHubApp({
      store,
      secretKey: await loadSecretKey(options.dir),
      clock,
      ids,
      // Native Ed25519: the hub only verifies, and in JavaScript that is most of a session's CPU.
      crypto: new SeededNodeCrypto(),
      rateLimits: options.rateLimits ?? false,
      deviceAuth: options.deviceAuth ?? "tofu",
      ...(options.helloLimits !== undefined ? { helloLimits: options.helloLimits } : {}),
      logger: options.log ?? false,
      publicUrl: () => publicUrl,
      routing: {
        targets: { policy: routeTargets, listening: () => listening },
        ...(options.routeLogRetention ? { logRetention: options.routeLogRetention } : {}),
      },
      // One app, two servers: the same handler answers plain HTTP and HTTPS.
      serverFactory: (fastifyHandler) => {
        const handler = gate.wrap(fastifyHandler);
        httpServer = createHttpServer(handler);
        if (tls) {
          httpsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, handler);
          // fastify answers malformed requests on the server it was given; this one too.
          httpsServer.on("clientError", hubClientErrorHandler);
        }
        return httpServer;
      },
    });
    app = built.app;

    const address = await listenOn(httpServer!, listen.host, listen.port, "http");
    listening.push({ host: listen.host, port: address.port }, { host: address.address, port: address.port });
    const url = `http://${urlHost(listen.host)}:${address.port}`;
    let tlsUrl: string | null = null;
    if (httpsServer && tlsListen) {
      const tlsAddress = await listenOn(httpsServer, tlsListen.host, tlsListen.port, "https");
      listening.push(
        { host: tlsListen.host, port: tlsAddress.port },
        { host: tlsAddress.address, port: tlsAddress.port },
      );
      const host = urlHost(tlsListen.host);
      tlsUrl = `https://${host === "127.0.0.1" ? "localhost" : host}:${tlsAddress.port}`;
    }
    publicUrl = tlsUrl ?? url;

    // Credentials: made on first start; later starts refresh the URLs and keep the secrets.
    const credentialsPath = join(options.dir, "credentials.json");
    let state = await bootstrapState(store);
    let bootstrapped = false;
    let secrets: { token: string; password: string } | undefined;
    if (!state) {
      const made = await bootstrapHub(store, ids, clock, options.adminPassword);
      state = made.state;
      secrets = { token: made.token, password: made.password };
      bootstrapped = true;
    } else {
      const previous = await readText(credentialsPath);
      try {
        const parsed = previous ? (JSON.parse(previous) as Partial<HubCredentials>) : undefined;
        if (parsed?.token && parsed.password) secrets = { token: parsed.token, password: parsed.password };
      } catch {
        secrets = undefined;
      }
      if (!secrets) {
        // The file was lost: its secrets exist nowhere else, so issue a new token and password.
        secrets = await reissueAdminSecrets(store, ids, clock, state);
        if (!secrets)
          throw new Error(`hub database in ${options.dir} lost its admin user; use another --dir`);
      }
    }
    const credentials: HubCredentials = {
      hub_url: url,
      hub_tls_url: tlsUrl,
      ca_cert: tls ? resolve(tls.caPath) : null,
      project_uid: state.project_uid,
      product_uid: state.product_uid,
      token: secrets.token,
      username: state.username,
      password: secrets.password,
    };
    await writePrivateFile(credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`);
    gate.open();

    let closing: Promise<void> | undefined;
    const finalApp = app;
    const finalHttp = httpServer!;
    const finalHttps = httpsServer;
    const api = new HubApi({
      send: injectedInto(() => Promise.resolve(finalApp)),
      token: credentials.token,
      projectUid: credentials.project_uid,
      productUid: credentials.product_uid,
      // It listens already: its own address, as credentials.json gives it.
      listen: () =>
        Promise.resolve({
          url,
          token: credentials.token,
          projectUid: credentials.project_uid,
          productUid: credentials.product_uid,
          close: () => Promise.resolve(),
        }),
      settle: () => built.services.routing.settle(),
    });
    return Object.assign(api, {
      url,
      tlsUrl,
      credentials,
      credentialsPath,
      bootstrapped,
      rateLimits: options.rateLimits ?? false,
      deviceAuth: options.deviceAuth ?? "tofu",
      routeTargets,
      store,
      storeLocation: describeStoreLocation(location),
      app: finalApp,
      services: built.services,
      close() {
        closing ??= (async () => {
          // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
          const servers = [finalHttp, ...(finalHttps ? [finalHttps] : [])];
          const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
          for (const s of servers) s.closeIdleConnections();
          await finalApp.close();
          await Promise.all(closed);
          await store.close();
        })();
        return closing;
      },
    });
  } catch (e) {
    gate.fail();
    httpServer?.close();
    httpsServer?.close();
    await app?.close().catch(() => undefined);
    await store.close();
    throw e;
  }
}
