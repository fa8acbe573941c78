import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";
import { freshTestDatabase, postgresHere, sqliteHere } from "../../support/postgres.js";

/** Each half in the vitest project that runs it (SQLite in `fast`, PostgreSQL in `postgres`). */
const backends = (): string[] => [
  ...(sqliteHere() ? ["sqlite"] : []),
  ...(postgresHere() ? ["postgres"] : []),
];

/**
 * The delivery queue lives in the store: deliveries waiting for a retry, or cut off by a stop,
 * are made by the hub that opens the same database next, on its clock.
 */
describe.each(backends())("pending deliveries across a restart (%s)", (backend) => {
  let dir: string;
  let endpoint: HttpEndpoint;
  /** The store a restart opens again: a SQLite file, or a new PostgreSQL database. */
  let path: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-routes-restart-"));
    endpoint = await HttpEndpoint.start();
    path = backend === "postgres" ? (await freshTestDatabase())! : join(dir, "hub.db");
  });

  afterEach(async () => {
    await endpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("makes a retry that was waiting when the hub stopped, once the clock reaches it", async () => {
    const clock = new FakeClock();
    const first = await RoutingHub.start({ path, clock });
    const device = await first.device();
    const route = await first.route({ label: "r", type: "http", http: { url: `${endpoint.url}/in` } });
    endpoint.handler = (_req, res) => {
      res.statusCode = 500;
      res.end();
    };
    const event = await first.event(device, "data.qo", { n: 1 });
    await first.settle();
    expect(first.routing.pending().get(route.uid)).toBe(1);
    expect(first.faults).toEqual([]);
    await first.close();

    endpoint.handler = (_req, res) => res.end("back");
    await clock.advance(30_000);
    const second = await RoutingHub.start({ path, clock });
    await second.settle();
    expect(endpoint.received).toHaveLength(1); // not yet: the retry is due a minute after the failure
    await second.advance(30_000);
    expect(endpoint.received).toHaveLength(2);
    expect((endpoint.received[1]!.json as { event: string }).event).toBe(event.uid);
    expect((await second.logs(route.uid)).map((l) => [l.status, l.source])).toEqual([
      ["500", "routing"],
      ["200", "retry"],
    ]);
    expect(second.routing.pending().size).toBe(0);
    expect(second.faults).toEqual([]);
    await second.close();
  });

  it("makes a delivery that was in flight when the hub stopped, unlogged, at the next start", async () => {
    const clock = new FakeClock();
    const first = await RoutingHub.start({ path, clock });
    const device = await first.device();
    const route = await first.route({ label: "r", type: "http", http: { url: `${endpoint.url}/in` } });
    endpoint.handler = () => undefined; // never answers
    await first.event(device, "data.qo", { n: 1 });
    await endpoint.receivedCount(1);
    await first.close(); // abandons the request in flight
    expect(await first.logs(route.uid).catch(() => "closed")).toBe("closed");

    endpoint.handler = (_req, res) => res.end("ok");
    const second = await RoutingHub.start({ path, clock });
    await second.settle();
    expect(endpoint.received).toHaveLength(2);
    expect((await second.logs(route.uid)).map((l) => [l.status, l.source])).toEqual([["200", "routing"]]);
    expect(second.faults).toEqual([]);
    await second.close();
  });

  it("forgets the deliveries of a route deleted meanwhile", async () => {
    const clock = new FakeClock();
    const first = await RoutingHub.start({ path, clock });
    const device = await first.device();
    const route = await first.route({ label: "r", type: "http", http: { url: `${endpoint.url}/in` } });
    endpoint.handler = (_req, res) => {
      res.statusCode = 502;
      res.end();
    };
    await first.event(device, "data.qo", { n: 1 });
    await first.settle();
    expect(await first.routing.delete(first.projectUid, route.uid)).toBe(true);
    expect(first.routing.pending().size).toBe(0);
    await first.close();

    const second = await RoutingHub.start({ path, clock });
    await second.advance(10 * 60_000);
    expect(endpoint.received).toHaveLength(1);
    // Its logs stay (by event); the route is gone.
    expect(await second.logs(route.uid)).toHaveLength(1);
    expect(await second.routing.get(second.projectUid, route.uid)).toBeUndefined();
    await second.close();
  });
});
