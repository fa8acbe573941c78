import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RETRY_DELAYS_MS } from "../../../hub/routing/RoutingService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { until } from "../../support/waiting.js";
import { RoutingHub } from "./support/routingFixture.js";
import { closedPort, HttpEndpoint, rawServer } from "./support/servers.js";

/**
 * A failed attempt (no connection, no answer in time, an answer that is not HTTP, a 5xx) is
 * logged with `attn` and tried again 1, 3 and 6 minutes later, as the hosted hub does ("up to
 * three times over a period of 6 minutes"); an answer that says the request itself is wrong (4xx,
 * or a redirect, never followed) is logged with `attn` and not retried. Fake clock, real sockets.
 */
describe("failed deliveries (fake clock, in process)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await RoutingHub.start();
    endpoint = await HttpEndpoint.start();
    device = await hub.device();
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  /** Runs the clock through the retry schedule, settling at each retry. */
  async function throughRetries(): Promise<void> {
    for (const delay of RETRY_DELAYS_MS) await hub.advance(delay);
  }

  it("retries a 5xx answer 1, 3 and 6 minutes after the first attempt, one log each, then gives up", async () => {
    expect(RETRY_DELAYS_MS).toEqual([60_000, 120_000, 180_000]);
    endpoint.handler = (_req, res) => {
      res.statusCode = 503;
      res.end("try later");
    };
    const route = await hub.route({ label: "down", type: "http", http: { url: `${endpoint.url}/x` } });
    const start = hub.clock.now();
    const event = await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await throughRetries();
    const logs = await hub.logs(route.uid);
    expect(logs.map((l) => [l.dateMs - start, l.status, l.attn, l.source, l.text, l.eventUid])).toEqual([
      [0, "503", true, "routing", "try later", event.uid],
      [60_000, "503", true, "retry", "try later", event.uid],
      [180_000, "503", true, "retry", "try later", event.uid],
      [360_000, "503", true, "retry", "try later", event.uid],
    ]);
    await hub.advance(60 * 60_000);
    expect(await hub.logs(route.uid)).toHaveLength(4);
    expect(endpoint.received).toHaveLength(4);
    expect(hub.routing.pending().size).toBe(0);
  });

  it("stops retrying once an attempt succeeds, and lets later events pass while one waits", async () => {
    let fail = true;
    endpoint.handler = (req, res) => {
      const n = (req.json as { body: { n: number } }).body.n;
      res.statusCode = fail && n === 1 ? 500 : 200;
      res.end();
    };
    const route = await hub.route({ label: "flaky", type: "http", http: { url: endpoint.url } });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.event(device, "data.qo", { n: 2 });
    await hub.settle();
    fail = false;
    await hub.advance(60_000);
    await throughRetries();
    const seen = endpoint.received.map((r) => (r.json as { body: { n: number } }).body.n);
    expect(seen).toEqual([1, 2, 1]);
    expect((await hub.logs(route.uid)).map((l) => [l.status, l.source])).toEqual([
      ["500", "routing"],
      ["200", "routing"],
      ["200", "retry"],
    ]);
  });

  it("retries when nothing listens, when no answer comes in time, and when the answer is not HTTP", async () => {
    const port = await closedPort();
    const garbage = await rawServer("this is not HTTP\r\n\r\n");
    const refused = await hub.route({
      label: "refused",
      type: "http",
      http: { url: `http://127.0.0.1:${port}/x` },
    });
    const invalid = await hub.route({ label: "invalid", type: "http", http: { url: garbage.url } });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await throughRetries();
    const refusedLogs = await hub.logs(refused.uid);
    expect(refusedLogs.map((l) => [l.status, l.attn])).toEqual(Array(4).fill(["connection failed", true]));
    expect(refusedLogs[0]!.text).toMatch(/ECONNREFUSED/);
    const invalidLogs = await hub.logs(invalid.uid);
    expect(invalidLogs.map((l) => [l.status, l.attn])).toEqual(Array(4).fill(["invalid response", true]));
    expect(invalidLogs[0]!.text).toMatch(/^invalid HTTP response: /);
    await garbage.close();
  });

  it("gives up on an answer after the route's timeout (30 s when unset), on the hub clock", async () => {
    const hanging: (() => void)[] = [];
    endpoint.handler = (_req, res) => {
      hanging.push(() => res.end("late"));
    };
    const quick = await hub.route({
      label: "5 s",
      type: "http",
      http: { url: `${endpoint.url}/quick`, timeout: 5 },
    });
    const plain = await hub.route({ label: "default", type: "http", http: { url: `${endpoint.url}/plain` } });
    await hub.event(device, "data.qo", { n: 1 });
    await endpoint.receivedCount(2);
    await hub.clock.advance(4_999);
    expect(hub.routing.inFlight()).toBe(2);
    await hub.clock.advance(1);
    // The 5 s request ends (real I/O) before the clock moves on; the 30 s one is still waiting.
    await until(
      (fire) => hub.routing.onChange(fire),
      () => hub.routing.inFlight() === 1,
      "the 5 s attempt's end",
    );
    await hub.clock.advance(25_000);
    await hub.settle();
    const quickLog = (await hub.logs(quick.uid))[0]!;
    expect(quickLog).toMatchObject({ status: "timeout", attn: true, durationMs: 5_000 });
    expect(quickLog.text).toBe("no complete answer within 5000 ms");
    expect(await hub.logs(plain.uid)).toMatchObject([{ status: "timeout", durationMs: 30_000 }]);
    for (const finish of hanging) finish();
    // Each is retried a minute after it failed (at 65 s and 90 s). The clock stops at each due
    // time: were it run past a retry in one go, the retry's own timeout would fire before its
    // real answer arrived.
    endpoint.handler = (_req, res) => res.end("ok");
    await hub.advance(35_000);
    expect((await hub.logs(quick.uid)).map((l) => l.status)).toEqual(["timeout", "200"]);
    expect((await hub.logs(plain.uid)).map((l) => l.status)).toEqual(["timeout"]);
    await hub.advance(25_000);
    expect((await hub.logs(plain.uid)).map((l) => l.status)).toEqual(["timeout", "200"]);
  });

  it("does not retry a 4xx, never follows a redirect, and keeps 8 KiB of an answer's text", async () => {
    endpoint.handler = (req, res) => {
      if (req.url === "/bad") {
        res.statusCode = 422;
        res.end("x".repeat(20_000));
      } else {
        res.statusCode = 302;
        res.setHeader("Location", "https://elsewhere.example/in");
        res.end();
      }
    };
    const bad = await hub.route({ label: "bad", type: "http", http: { url: `${endpoint.url}/bad` } });
    const moved = await hub.route({ label: "moved", type: "http", http: { url: `${endpoint.url}/moved` } });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await throughRetries();
    const [badLog, ...moreBad] = await hub.logs(bad.uid);
    expect(moreBad).toEqual([]);
    expect(badLog).toMatchObject({ status: "422", attn: true });
    expect(badLog!.text).toBe("x".repeat(8192));
    expect(await hub.logs(moved.uid)).toMatchObject([
      { status: "302", attn: true, text: "redirect to https://elsewhere.example/in not followed" },
    ]);
    expect(endpoint.received.map((r) => r.url)).toEqual(["/bad", "/moved"]);
  });
});
