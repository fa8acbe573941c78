import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SmartFleets } from "../../../hub/devices/SmartFleets.js";
import { WebRequestError } from "../../../hub/routing/RoutingService.js";
import { newFleet } from "../../../hub/store/records.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { until } from "../../support/waiting.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";

/** A string a backtracking regular expression takes many seconds over on the hub's own thread. */
const BACKTRACKER = `${"a".repeat(27)}!`;
const REGEX = "$match(s, /(a+)+$/)";

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/**
 * Counts the hub thread's timer ticks while `work` runs: a thread held by an evaluation would
 * count none until it ends (the evaluations here take at least a second in their worker).
 */
async function ticksDuring<T>(work: Promise<T>): Promise<{ result: PromiseSettledResult<T>; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const [result] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { result: result!, ticks };
}

/**
 * The same isolated evaluator serves proxy routes' `jsonata`/`jsonata_in` and smart fleets'
 * rules: an expression stopped at a limit fails that web request (logged for the route) or that
 * rule (membership unchanged, the fault told), while the hub's thread goes on. A hub stopped in
 * good order while a delivery's expression is being evaluated leaves the delivery queued as it
 * was: only a hub that dies during an attempt has it counted as failed at the next start.
 */
describe("hostile JSONata in proxy routes and smart fleet rules (fake clock, in process)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;

  beforeEach(async () => {
    endpoint = await HttpEndpoint.start();
  });

  afterEach(async () => {
    await hub?.close();
    await endpoint.close();
  });

  it("fails a web request whose `jsonata` is stopped, logs it for the proxy route, and sends nothing", async () => {
    hub = await RoutingHub.start();
    const device = await hub.device();
    const route = await hub.route({
      label: "weather",
      type: "proxy",
      proxy: {
        alias: "weather",
        url: `${endpoint.url}/api`,
        transform: { format: "jsonata", jsonata: REGEX },
      },
    });
    const { result, ticks } = await ticksDuring(
      hub.routing.webRequest({
        projectUid: hub.projectUid,
        deviceUid: device.uid,
        alias: "weather",
        body: json({ s: BACKTRACKER }),
      }),
    );
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(result.status).toBe("rejected");
    const error = (result as PromiseRejectedResult).reason as WebRequestError;
    expect(error).toBeInstanceOf(WebRequestError);
    expect(error.code).toBe("transform");
    expect(error.message).toMatch(/^JSONata expression ran longer than 1000 ms: it was stopped/);
    expect(endpoint.received).toEqual([]);
    expect(await hub.logs(route.uid)).toMatchObject([
      {
        attn: true,
        status: "transform limit",
        source: "web proxy",
        text: error.message,
        deviceUid: device.uid,
      },
    ]);
    // The route goes on serving once the expression is harmless.
    await hub.routing.update(hub.projectUid, route.uid, {
      proxy: { transform: { format: "jsonata", jsonata: '{"t": s}' } },
    });
    await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      body: json({ s: "ok" }),
    });
    expect(endpoint.received.map((r) => r.json)).toEqual([{ t: "ok" }]);
    expect(hub.faults).toEqual([]);
  });

  it("fails a web request whose `jsonata_in` is stopped on the answer, and logs it", async () => {
    hub = await RoutingHub.start();
    const device = await hub.device();
    const route = await hub.route({
      label: "weather",
      type: "proxy",
      proxy: {
        alias: "weather",
        url: `${endpoint.url}/api`,
        transform: { format: "jsonata", jsonata_in: REGEX },
      },
    });
    endpoint.handler = (_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ s: BACKTRACKER }));
    };
    const { result, ticks } = await ticksDuring(
      hub.routing.webRequest({
        projectUid: hub.projectUid,
        deviceUid: device.uid,
        alias: "weather",
        method: "GET",
      }),
    );
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect((result as PromiseRejectedResult).reason).toMatchObject({ code: "transform" });
    const logs = await hub.logs(route.uid);
    // The request itself (200), then its answer's transform, stopped.
    expect(logs.map((l) => [l.status, l.source])).toEqual([
      ["200", "web proxy"],
      ["transform limit", "web proxy"],
    ]);
    expect(hub.faults).toEqual([]);
  });

  it("leaves a device's fleets as they were when a smart fleet's rule is stopped, tells the fault, and applies the other rules", async () => {
    hub = await RoutingHub.start();
    const device = await hub.device();
    const faults: unknown[] = [];
    const fleets = new SmartFleets(hub.store, hub.clock, hub.services.events, (e) => faults.push(e));
    const make = async (label: string, rule: string) => {
      const fleet = newFleet(
        { uid: hub.services.ids.fleetUid(), projectUid: hub.projectUid, label, created: hub.clock.now() },
        { smartRule: rule, smartRuleEnabled: true },
      );
      await hub.store.projects.createFleet(fleet);
      return fleet;
    };
    const hostile = await make("hostile", "$match(body.s, /(a+)+$/) ? 1 : 0");
    const fine = await make(
      "fine",
      '$exists(body.s) and $millis() = 1767225600000 and $now() = "2026-01-01T00:00:00.000Z" ? 1 : 0',
    );
    try {
      const event = await hub.event(device, "data.qo", { s: BACKTRACKER });
      const { ticks } = await ticksDuring(fleets.idle());
      expect(ticks).toBeGreaterThanOrEqual(3);
      // The fine rule read the hub's (fake) clock; the hostile one changed nothing.
      expect((await hub.store.devices.getDevice(device.uid))!.fleetUids).toEqual([fine.uid]);
      expect(faults.map((f) => (f as Error).message)).toEqual([
        `smart fleet ${hostile.uid}: its rule was stopped on event ${event.uid}: JSONata expression ran longer than 1000 ms: it was stopped (its worker was killed)`,
      ]);
    } finally {
      fleets.stop();
    }
  });

  it("leaves a delivery queued uncounted when the hub stops in good order during its expression", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-jsonata-stop-"));
    try {
      const path = join(dir, "hub.db");
      const first = await RoutingHub.start({ path });
      const device = await first.device();
      const route = await first.route({
        label: "slow",
        type: "http",
        http: {
          url: `${endpoint.url}/in`,
          transform: { format: "jsonata", jsonata: "$match(body.s, /(a+)+$/)" },
        },
      });
      await first.event(device, "data.qo", { s: BACKTRACKER });
      await until(
        (fire) => first.routing.onChange(fire),
        () => first.routing.inFlight() > 0,
        "the attempt",
      );
      const [during] = await first.store.routes.pendingDeliveries();
      expect(during).toMatchObject({ routeUid: route.uid, attempt: 0, begun: 1 }); // counted before evaluating
      await first.close(); // the evaluation is cut short, the attempt abandoned unlogged
      expect(first.faults).toEqual([]);

      const store = new SqliteHubStore(path);
      expect(await store.routes.pendingDeliveries()).toMatchObject([
        { routeUid: route.uid, attempt: 0, begun: 0 },
      ]);
      expect(
        await store.routes.listLogs(
          first.projectUid,
          { sortBy: "date", sortOrder: "asc" },
          { offset: 0, limit: 10 },
        ),
      ).toEqual([]);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
