import { mkdtemp, rm } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { SeededRandom } from "../../../../core/SeededRandom.js";
import { bootstrapHub, NO_SIGN_IN } from "../../../../hub/bootstrap.js";
import { buildHubApp } from "../../../../hub/HubApp.js";
import { HubIds } from "../../../../hub/HubIds.js";
import type { HubServices } from "../../../../hub/HubServices.js";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import type { HelloLimits } from "../../../../hub/sync/HelloThrottle.js";
import type { DeviceAuth } from "../../../../hub/sync/SyncService.js";
import type { ZoneLookup } from "../../../../hub/sync/timeZone.js";
import type { ProtocolReply } from "../../../../protocol/messages.js";
import { FakeClock } from "../../../../runtime/FakeClock.js";
import { openHubStore } from "../../../../runtime/openHubStore.js";
import { startHub, type RunningHub } from "../../../../runtime/startHub.js";
import { createTestDatabase, postgresHere, sqliteHere, testPostgresUrl } from "../../../support/postgres.js";
import { ScriptedModule, type SendMessage } from "./ScriptedModule.js";

/**
 * How the test's messages reach the hub: handed to the sync service in process (no sockets), or
 * POSTed to `/device/v1` of a hub listening on loopback, over plain HTTP or HTTPS.
 */
export type Via = "in process" | "http" | "https";
export const ALL_VIAS: Via[] = ["in process", "http", "https"];

import type { Backend } from "../../../support/backends.js";
export type { Backend };

/**
 * Every way in on SQLite, and the in-process and HTTP ways on PostgreSQL when a server is to be
 * had (test/support/postgres.ts): `[via, backend]` pairs for describe.each, each half in the
 * vitest project that runs it (SQLite in `fast`, PostgreSQL in `postgres`).
 */
export function syncCases(): [Via, Backend][] {
  const cases = sqliteHere() ? ALL_VIAS.map((via): [Via, Backend] => [via, "sqlite"]) : [];
  if (postgresHere()) cases.push(["in process", "postgres"], ["http", "postgres"]);
  return cases;
}

/** A message as the other end receives it (its JSON text parsed again). */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

// The hub's certificate is issued on the fake clock's date; these tests are about the sync, not
// about certificate checks (start-hub-writes-credentials-and-serves-https tests those).
function postHttps(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { method: "POST", rejectUnauthorized: false, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A hub for the sync tests: fake clock, seeded identifiers, the bootstrapped project with its
 * default product, and a way to send protocol messages the chosen way. `api` calls the REST API as
 * the bootstrap admin (inject in process, fetch on loopback).
 */
export class SyncFixture {
  #devices = 0;

  private constructor(
    readonly via: Via,
    readonly services: HubServices,
    readonly store: HubStore,
    readonly clock: FakeClock,
    readonly projectUid: string,
    readonly productUid: string,
    readonly token: string,
    private readonly app: FastifyInstance,
    private readonly running: RunningHub | undefined,
    private readonly dir: string | undefined,
  ) {}

  static async start(
    via: Via,
    options: {
      zoneLookup?: ZoneLookup;
      deviceAuth?: DeviceAuth;
      helloLimits?: HelloLimits | false;
      /** The database (default SQLite: in memory in process, the state directory's file otherwise). */
      backend?: Backend;
    } = {},
  ): Promise<SyncFixture> {
    const sync = {
      ...(options.deviceAuth ? { deviceAuth: options.deviceAuth } : {}),
      ...(options.helloLimits !== undefined ? { helloLimits: options.helloLimits } : {}),
    };
    const clock = new FakeClock();
    const ids = new HubIds(new SeededRandom(11));
    const postgres =
      options.backend === "postgres" ? await createTestDatabase(testPostgresUrl()!) : undefined;
    if (via === "in process") {
      const store = await openHubStore(postgres ?? { kind: "sqlite", path: ":memory:" });
      const { app, services } = await buildHubApp({
        store,
        clock,
        ids,
        rateLimits: false,
        zoneLookup: options.zoneLookup ?? false,
        ...sync,
      });
      const made = await bootstrapHub(store, ids, clock, NO_SIGN_IN);
      return new SyncFixture(
        via,
        services,
        store,
        clock,
        made.state.project_uid,
        made.state.product_uid,
        made.token,
        app,
        undefined,
        undefined,
      );
    }
    const dir = await mkdtemp(join(tmpdir(), "cardsim-sync-"));
    const hub = await startHub({
      dir,
      listen: "127.0.0.1:0",
      tlsListen: via === "https" ? "127.0.0.1:0" : false,
      clock,
      ids,
      rateLimits: false,
      log: false,
      ...sync,
      ...(postgres ? { store: postgres } : {}),
    });
    return new SyncFixture(
      via,
      hub.services,
      hub.store,
      clock,
      hub.credentials.project_uid,
      hub.credentials.product_uid,
      hub.credentials.token,
      hub.app,
      hub,
      dir,
    );
  }

  /** True when messages travel over TLS (secure notefiles move). */
  get secure(): boolean {
    return this.via !== "http";
  }

  /** Sends one message as it would cross the wire. */
  readonly send: SendMessage = async (message) => {
    if (this.via === "in process") {
      return wire(await this.services.sync.handle(wire(message), { secure: true }));
    }
    const res = await this.post(JSON.stringify(message));
    if (res.status !== 200) throw new Error(`POST /device/v1 answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text) as ProtocolReply;
  };

  /** A raw POST /device/v1 (network modes), or its inject twin in process. */
  async post(body: string, contentType = "application/json"): Promise<{ status: number; text: string }> {
    if (this.via === "https") return postHttps(`${this.running!.tlsUrl}/device/v1`, body);
    if (this.via === "http") {
      const res = await fetch(`${this.running!.url}/device/v1`, {
        method: "POST",
        headers: { "content-type": contentType },
        body,
      });
      return { status: res.status, text: await res.text() };
    }
    const res = await this.app.inject({
      method: "POST",
      url: "/device/v1",
      headers: { "content-type": contentType },
      payload: body,
    });
    return { status: res.statusCode, text: res.body };
  }

  /** A REST API call as the bootstrap admin; resolves with status and parsed body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.via === "in process") {
      const res = await this.app.inject({
        method: method as "GET",
        url: path,
        headers,
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, json: res.body ? JSON.parse(res.body) : undefined };
    }
    const res = await fetch(`${this.running!.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /** A scripted module with a new DeviceUID (dev:864475000000001, ...) of the default product. */
  async module(options: { device?: string; product?: string; seed?: number } = {}): Promise<ScriptedModule> {
    this.#devices++;
    return ScriptedModule.create(this.send, {
      device: options.device ?? `dev:${864_475_000_000_000 + this.#devices}`,
      product: options.product ?? this.productUid,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    });
  }

  async close(): Promise<void> {
    if (this.running) await this.running.close();
    else {
      await this.app.close();
      await this.store.close();
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
