import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "../../../core/json.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FaultyHubLink } from "../../../firmware/radio/FaultyHubLink.js";
import type { HubLink } from "../../../firmware/radio/HubLink.js";
import { SimHubLink } from "../../../firmware/radio/SimHubLink.js";
import { HttpsHubLink } from "../../../runtime/HttpsHubLink.js";
import { HubIds } from "../../../hub/HubIds.js";
import type { HubServices } from "../../../hub/HubServices.js";
import type { DeviceRecord, EventRecord } from "../../../hub/store/records.js";
import type { RouteLogRecord, RouteRecord } from "../../../hub/store/RouteStore.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { SimulatedModule, type SimulatedModuleOptions } from "../../../runtime/SimulatedModule.js";
import { startHub, type RunningHub } from "../../../runtime/startHub.js";
import { testAdminPassword } from "../../support/adminPassword.js";

export type Transport = "in-process" | "https";
/** Every sync test runs over both: the very same hub code, with sockets and without. */
export const TRANSPORTS: readonly Transport[] = ["in-process", "https"];

/**
 * A hub and modules linked to it, on one fake clock: in process (the module's link calls the
 * hub's sync service; `link` lets a test drop messages), or over HTTPS on loopback (the hub's own
 * CA; real sockets, the same clock).
 */
export class SyncWorld {
  readonly modules: SimulatedModule[] = [];
  /** Each module's link, to arm faults (in process and over HTTPS alike). */
  readonly links = new Map<SimulatedModule, FaultyHubLink>();
  readonly #https: HttpsHubLink[] = [];

  private constructor(
    readonly transport: Transport,
    readonly clock: FakeClock,
    readonly hub: RunningHub,
    readonly dir: string,
  ) {}

  static async start(transport: Transport, options: { seed?: number } = {}): Promise<SyncWorld> {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-sync-"));
    const clock = new FakeClock();
    const hub = await startHub({
      dir,
      listen: "127.0.0.1:0",
      tlsListen: transport === "https" ? "127.0.0.1:0" : false,
      clock,
      ids: new HubIds(new SeededRandom(options.seed ?? 11)),
      rateLimits: false,
      // Nothing outlives the world: no fsync at every commit.
      database: "memory",
      adminPassword: await testAdminPassword(),
    });
    return new SyncWorld(transport, clock, hub, dir);
  }

  get services(): HubServices {
    return this.hub.services;
  }

  get projectUid(): string {
    return this.hub.credentials.project_uid;
  }

  get productUid(): string {
    return this.hub.credentials.product_uid;
  }

  /** A module linked to this hub (the hub's product by default). */
  async module(
    options: Partial<SimulatedModuleOptions> & {
      seed?: number | string;
      /** The HTTPS link's own timeout, ms (HttpsHubLink `timeoutMs`). */
      linkTimeoutMs?: number;
    } = {},
  ): Promise<SimulatedModule> {
    const product = this.productUid;
    let inner: HubLink;
    if (this.transport === "https") {
      const https = new HttpsHubLink({
        url: this.hub.tlsUrl!,
        ca: this.hub.credentials.ca_cert!,
        ...(options.linkTimeoutMs !== undefined ? { timeoutMs: options.linkTimeoutMs } : {}),
      });
      this.#https.push(https);
      inner = https;
    } else {
      inner = new SimHubLink(
        (request, bytes) => this.services.sync.handle(request, { secure: true, bytes }),
        {
          clock: this.clock,
        },
      );
    }
    const link = new FaultyHubLink(inner);
    const hub: SimulatedModuleOptions["hub"] = { link, product };
    const { linkTimeoutMs: _linkTimeoutMs, ...moduleOptions } = options;
    const sim = await SimulatedModule.boot({
      clock: this.clock,
      seed: options.seed ?? this.modules.length + 1,
      timeKnown: true,
      hub,
      ...moduleOptions,
    });
    this.modules.push(sim);
    this.links.set(sim, link);
    return sim;
  }

  /** Sends a request to a module, failing on an error reply. */
  async req(sim: SimulatedModule, request: JsonObject): Promise<JsonObject> {
    const reply = await sim.module.request(request);
    if (!reply) throw new Error("no reply");
    if (typeof reply["err"] === "string") throw new Error(`${String(request["req"])}: ${reply["err"]}`);
    return reply;
  }

  /** Asks the module for a sync and waits until it is over (the engine settles; the clock stays). */
  async sync(
    sim: SimulatedModule,
    options: { in?: boolean; out?: boolean; allow?: boolean } = {},
  ): Promise<JsonObject> {
    await this.req(sim, { req: "hub.sync", ...options });
    await sim.module.sync.idle();
    return this.req(sim, { req: "hub.sync.status" });
  }

  /** Puts the module online: continuous mode and a sync, after which its session stays open. */
  async online(sim: SimulatedModule): Promise<void> {
    await this.req(sim, { req: "hub.set", mode: "continuous" });
    await this.sync(sim);
    if (!sim.module.sync.isOnline) throw new Error("the module did not stay online");
  }

  /** A proxy route of the hub's project: web requests with `alias` go to `url`. */
  proxyRoute(alias: string, url: string, settings: JsonObject = {}): Promise<RouteRecord> {
    return this.services.routing.create(this.projectUid, {
      label: alias,
      type: "proxy",
      proxy: { alias, url, ...settings },
    });
  }

  /** Every route log of the project (web requests included), oldest first. */
  routeLogs(): Promise<RouteLogRecord[]> {
    return this.services.store.routes.listLogs(
      this.projectUid,
      { sortBy: "date", sortOrder: "asc" },
      { offset: 0, limit: 10_000 },
    );
  }

  /** A request to the hub's project API as its admin, over HTTP: the JSON answer (`{}` for 204). */
  async api(method: string, path: string, body?: unknown): Promise<JsonObject> {
    const res = await fetch(`${this.hub.url}/v1/projects/${this.projectUid}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.hub.credentials.token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.status === 204 ? {} : ((await res.json()) as JsonObject);
  }

  /** The module's device record on the hub. */
  async device(sim: SimulatedModule): Promise<DeviceRecord> {
    const device = await this.services.store.devices.getDevice(sim.module.deviceUid);
    if (!device) throw new Error(`the hub has no device ${sim.module.deviceUid}`);
    return device;
  }

  /** The module's events on the hub in the order it stored them (system notefiles only when asked). */
  async events(sim: SimulatedModule, options: { system?: boolean } = {}): Promise<EventRecord[]> {
    const page = await this.services.store.telemetry.listEvents(
      this.projectUid,
      { deviceUids: [sim.module.deviceUid] },
      { by: "modified", descending: false },
      { offset: 0, limit: 10_000 },
    );
    return page.items.filter((e) => options.system || !e.file.startsWith("_"));
  }

  async close(): Promise<void> {
    for (const sim of this.modules) await sim.close();
    for (const https of this.#https) https.close();
    await this.hub.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
