import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LOG_RETENTION } from "../../../hub/routing/RoutingService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";

const DAY = 86_400_000;

/**
 * Route logs do not grow without end: each route keeps its newest `keepPerRoute` logs, and logs
 * older than `maxAgeMs` on the hub clock are dropped, as logs are written (one index seek per
 * route written; the age rule at most once a minute of hub time). Defaults: 1,000 per route, 30
 * days.
 */
describe("route log retention (fake clock, loopback endpoint)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;
  let device: DeviceRecord;

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  async function start(logRetention?: { keepPerRoute?: number; maxAgeMs?: number }): Promise<void> {
    hub = await RoutingHub.start(logRetention ? { routing: { logRetention } } : {});
    endpoint = await HttpEndpoint.start();
    device = await hub.device();
  }

  it("keeps the newest N logs of each route, web requests included", async () => {
    await start({ keepPerRoute: 5, maxAgeMs: 0 });
    const a = await hub.route({ label: "a", type: "http", http: { url: `${endpoint.url}/a` } });
    const b = await hub.route({
      label: "b",
      type: "http",
      http: { url: `${endpoint.url}/b`, filter: { type: "include", files: ["b.qo"] } },
    });
    const p = await hub.route({ label: "p", type: "proxy", proxy: { alias: "p", url: `${endpoint.url}/p` } });
    for (let i = 0; i < 12; i++) {
      await hub.event(device, "data.qo", { i });
      await hub.settle();
      await hub.advance(1000);
    }
    for (let i = 0; i < 3; i++) await hub.event(device, "b.qo", { i });
    for (let i = 0; i < 7; i++) {
      await hub.routing.webRequest({
        projectUid: hub.projectUid,
        deviceUid: device.uid,
        alias: "p",
        method: "GET",
        name: String(i),
      });
    }
    await hub.settle();
    const kept = await hub.logs(a.uid);
    expect(kept).toHaveLength(5);
    // The newest five of its fifteen (it takes every notefile): events 10 and 11, then b.qo's three.
    const now = hub.clock.now();
    expect(kept.map((l) => l.dateMs)).toEqual([now - 2000, now - 1000, now, now, now]);
    expect(await hub.logs(b.uid)).toHaveLength(3);
    expect((await hub.logs(p.uid)).map((l) => l.url)).toEqual(
      [2, 3, 4, 5, 6].map((i) => `${endpoint.url}/p/${i}`),
    );
  });

  it("drops logs older than the retention age on the hub clock", async () => {
    await start({ keepPerRoute: 0, maxAgeMs: 2 * DAY });
    const a = await hub.route({ label: "a", type: "http", http: { url: `${endpoint.url}/a` } });
    const t0 = hub.clock.now();
    await hub.event(device, "data.qo", { n: 0 });
    await hub.settle();
    await hub.advance(DAY);
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    expect(await hub.logs(a.uid)).toHaveLength(2);
    await hub.advance(DAY + 60_000);
    await hub.event(device, "data.qo", { n: 2 });
    await hub.settle();
    const logs = await hub.logs(a.uid);
    expect(logs.map((l) => l.dateMs)).toEqual([t0 + DAY, t0 + 2 * DAY + 60_000]);
  });

  it("applies 1,000 per route and 30 days when not told otherwise", async () => {
    expect(DEFAULT_LOG_RETENTION).toEqual({ keepPerRoute: 1000, maxAgeMs: 30 * DAY });
    await start();
    const a = await hub.route({ label: "a", type: "http", http: { url: `${endpoint.url}/a` } });
    await hub.event(device, "data.qo", { n: 0 });
    await hub.settle();
    await hub.advance(16 * DAY); // (a timer may wait at most 24.8 days)
    await hub.advance(15 * DAY);
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    expect((await hub.logs(a.uid)).map((l) => l.dateMs)).toEqual([hub.clock.now()]);
  });
});
