import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bootstrapHub, NO_SIGN_IN, bootstrapState, reissueAdminSecrets } from "../../../hub/bootstrap.js";
import { buildHubApp } from "../../../hub/HubApp.js";
import { HubIds } from "../../../hub/HubIds.js";
import { createHubServices, type HubServices } from "../../../hub/HubServices.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import { until } from "../../support/waiting.js";
import { HttpEndpoint } from "./support/servers.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Waits until `check` holds, looking again whenever the hub's routing starts or ends an attempt or writes logs. */
const whenRouted = (h: LiveHub, check: () => Promise<boolean> | boolean, what: string): Promise<void> =>
  until((fire) => h.services.routing.onChange(fire), check, what);

/** A hub listening on loopback on the real clock, over a database file (a restart opens it again). */
class LiveHub {
  private constructor(
    readonly store: SqliteHubStore,
    readonly services: HubServices,
    readonly app: FastifyInstance,
    readonly url: string,
    readonly token: string,
    readonly project: string,
    readonly product: string,
    readonly faults: unknown[],
  ) {}

  static async start(path: string): Promise<LiveHub> {
    const store = new SqliteHubStore(path);
    const clock = new SystemClock();
    const ids = new HubIds();
    const faults: unknown[] = [];
    const services = createHubServices({
      store,
      clock,
      ids,
      rateLimits: false,
      // One retry, soon: a stopped evaluation is tried twice, then dead-lettered.
      routing: { retryDelaysMs: [100] },
      onRoutingError: (e) => faults.push(e),
      onListenerError: (e) => faults.push(e),
    });
    const { app } = await buildHubApp({ services });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // A database opened again keeps its project; its admin gets a new token.
    const state = await bootstrapState(store);
    const made = state ? undefined : await bootstrapHub(store, ids, clock, NO_SIGN_IN);
    const token = made?.token ?? (await reissueAdminSecrets(store, ids, clock, state!))!.token;
    const { project_uid: project, product_uid: product } = state ?? made!.state;
    return new LiveHub(store, services, app, url, token, project, product, faults);
  }

  async api(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  async close(): Promise<void> {
    await this.app.close();
    this.services.smartFleets.stop();
    await this.services.routing.stop();
    await this.store.close();
  }
}

/**
 * A route's JSONata transform is the user's code, run for every event: one long built-in call (a
 * regular expression backtracking on a device's string, a huge `$pad`) must not stop the hub's
 * thread, nor kill its process, and a delivery the hub died on must not kill it again at the
 * next start. The hub runs the expressions in worker threads with a deadline and a heap limit:
 * while one is being evaluated the API answers; the delivery fails with a clear route log, is
 * retried, then dead-lettered.
 */
describe("a hostile JSONata transform on a listening hub", () => {
  let dir: string;
  let endpoint: HttpEndpoint;
  let hub: LiveHub | undefined;
  const device = "dev:864475040523995";

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hostile-jsonata-"));
    endpoint = await HttpEndpoint.start();
  });

  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await endpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function startWithDevice(): Promise<LiveHub> {
    const started = await LiveHub.start(join(dir, "hub.db"));
    await started.store.devices.putDevice({
      uid: device,
      projectUid: started.project,
      productUid: started.product,
      provisioned: Date.now(),
    });
    return started;
  }

  const routeLogs = async (h: LiveHub, routeUid: string): Promise<any[]> =>
    h.api("GET", `/v1/projects/${h.project}/routes/${routeUid}/route-logs?sortBy=date&sortOrder=asc`);

  /**
   * Adds a note through the API under a route with `jsonata`, then, once the delivery's attempt
   * is under way (in flight, no log yet), asks the API for the project's routes: the answer must
   * come while the evaluation is still going on (no log yet). Before the fix the evaluation held
   * the hub's thread: the test could not even see the attempt in flight before its log was there.
   */
  async function answersDuringEvaluation(jsonata: string, body: unknown): Promise<any[]> {
    const h = (hub = await startWithDevice());
    const route = await h.api("POST", `/v1/projects/${h.project}/routes`, {
      label: "hostile",
      type: "http",
      http: { url: `${endpoint.url}/in`, transform: { format: "jsonata", jsonata } },
    });
    await h.api("POST", `/v1/projects/${h.project}/devices/${device}/notes/data.qi`, { body });
    // The attempt is under way, or (the hub's thread having been held throughout) already logged.
    await whenRouted(
      h,
      async () => h.services.routing.inFlight() > 0 || (await routeLogs(h, route.uid)).length > 0,
      "the attempt under way",
    );
    expect(await routeLogs(h, route.uid), "the evaluation held the hub until it ended").toEqual([]);
    const listed = await h.api("GET", `/v1/projects/${h.project}/routes`);
    expect(listed.map((r: any) => r.uid)).toEqual([route.uid]);
    // The answer came while the expression was still being evaluated.
    const logsWhenAnswered = await h.store.routes.listLogs(
      h.project,
      { routeUid: route.uid, sortBy: "date", sortOrder: "asc" },
      { offset: 0, limit: 10 },
    );
    expect(logsWhenAnswered).toEqual([]);
    // First attempt, its retry: both stopped, the second dead-lettered.
    await whenRouted(h, async () => (await routeLogs(h, route.uid)).length === 2, "two logs");
    await h.services.routing.settle();
    expect(endpoint.received).toEqual([]);
    expect(h.services.routing.pending().size).toBe(0);
    expect(h.faults).toEqual([]);
    return routeLogs(h, route.uid);
  }

  it("answers the API while a regular expression backtracks on a device's string, and stops it", async () => {
    const logs = await answersDuringEvaluation("$match(body.s, /(a+)+$/)", { s: `${"a".repeat(28)}!` });
    expect(logs.map((l) => [l.status, l.attn, l.source])).toEqual([
      ["transform limit", true, "routing"],
      ["dead letter", true, "retry"],
    ]);
    expect(logs[0].text).toBe(
      "JSONata expression ran longer than 1000 ms: it was stopped (its worker was killed)",
    );
    expect(logs[1].text).toBe(
      "JSONata expression ran longer than 1000 ms: it was stopped (its worker was killed); dead-lettered after 2 attempts: not retried again",
    );
  });

  it("answers the API while an expression pads a string to 100,000,000 characters, and stops it", async () => {
    const logs = await answersDuringEvaluation('$length($pad("x", 100000000))', { n: 1 });
    expect(logs.map((l) => [l.status, l.attn])).toEqual([
      ["transform limit", true],
      ["dead letter", true],
    ]);
    // Stopped at the deadline or at the worker's heap limit, whichever comes first.
    expect(logs[0].text).toMatch(
      /^JSONata expression (ran longer than 1000 ms|used more than 128 MB of memory): it was stopped/,
    );
  });

  it("lives through a $pad to 500,000,000 characters (a fatal error in the hub's own thread), and says why nothing was sent", async () => {
    const h = (hub = await startWithDevice());
    const route = await h.api("POST", `/v1/projects/${h.project}/routes`, {
      label: "fatal",
      type: "http",
      http: { url: `${endpoint.url}/in`, transform: { format: "jsonata", jsonata: '$pad("x", 500000000)' } },
    });
    await h.api("POST", `/v1/projects/${h.project}/devices/${device}/notes/data.qi`, { body: { n: 1 } });
    await whenRouted(h, async () => (await routeLogs(h, route.uid)).length === 2, "two logs");
    const logs = await routeLogs(h, route.uid);
    expect(logs.map((l) => [l.status, l.text])).toEqual([
      [
        "transform limit",
        "JSONata expression reached a limit: the JSONata result is larger than 8388608 characters",
      ],
      [
        "dead letter",
        "JSONata expression reached a limit: the JSONata result is larger than 8388608 characters; dead-lettered after 2 attempts: not retried again",
      ],
    ]);
    expect((await h.api("GET", `/v1/projects/${h.project}/routes`)).length).toBe(1);
    expect(endpoint.received).toEqual([]);
    expect(h.faults).toEqual([]);
  });

  it("starts healthy over a delivery it died evaluating: the attempt counts as failed, the retry is stopped, the delivery dead-lettered", async () => {
    // The first hub queues the delivery for a disabled route (held), and records that an attempt
    // began, as a hub that died during the evaluation leaves it.
    const first = await startWithDevice();
    const route = await first.api("POST", `/v1/projects/${first.project}/routes`, {
      label: "fatal",
      type: "http",
      disabled: true,
      http: { url: `${endpoint.url}/in`, transform: { format: "jsonata", jsonata: '$pad("x", 500000000)' } },
    });
    await first.api("POST", `/v1/projects/${first.project}/devices/${device}/notes/data.qi`, {
      body: { n: 1 },
    });
    const [event] = await first.api("GET", `/v1/projects/${first.project}/events`).then((r) => r.events);
    expect(await first.services.routing.reroute(first.project, event.event, [route.uid])).toEqual([
      route.uid,
    ]);
    await first.services.routing.settle();
    const [queued] = await first.store.routes.pendingDeliveries();
    await first.store.routes.beginAttempt(queued!.seq);
    await first.close();

    const h = (hub = await LiveHub.start(join(dir, "hub.db")));
    await h.api("PUT", `/v1/projects/${h.project}/routes/${route.uid}`, { disabled: false });
    await whenRouted(h, async () => (await routeLogs(h, route.uid)).length === 2, "two logs");
    const logs = await routeLogs(h, route.uid);
    expect(logs.map((l) => [l.status, l.attn, l.source, l.event_uid])).toEqual([
      ["interrupted", true, "manual reroute", event.event],
      ["dead letter", true, "retry", event.event],
    ]);
    expect(logs[0].text).toBe(
      "the hub stopped during attempt 1 of this delivery (its JSONata transform may have ended it): counted as a failed attempt",
    );
    expect(logs[1].text).toMatch(/larger than 8388608 characters; dead-lettered after 2 attempts/);
    await h.services.routing.settle();
    expect(await h.store.routes.pendingDeliveries()).toEqual([]);
    expect((await h.api("GET", `/v1/projects/${h.project}/routes`)).length).toBe(1);
    expect(h.faults).toEqual([]);
  });
});
