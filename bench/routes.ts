/**
 * Route delivery throughput: events routed to a local HTTP endpoint (a program of its own, as a
 * routed service is), against a bare loop of POSTs of the same event JSON from the same process
 * to the same endpoint (the ceiling: one keep-alive connection, one request at a time, as a route
 * delivers). The routed side is timed from the moment the hub has committed the events (one
 * transaction, as a sync upload stores them) to the moment the last one is delivered and logged:
 * each event matched against the routes and queued in the store, transformed, POSTed, its route
 * log written and its queue entry removed. The event store's own insert is timed apart and
 * printed, not counted. Target: routed / bare >= 0.5 (the median of the rounds' ratios).
 * `--jsonata` gives the route a JSONata transform instead (evaluated in the hub's worker
 * processes, each attempt counted in the store first): what the isolation costs, printed against
 * the same bare loop, no target.
 *
 *   npx tsx bench/routes.ts [--events 10000] [--rounds 5] [--jsonata]
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapHub } from "../hub/bootstrap.js";
import { HubIds } from "../hub/HubIds.js";
import { createHubServices } from "../hub/HubServices.js";
import { DEFAULT_LOG_RETENTION } from "../hub/routing/RoutingService.js";
import { eventDocument } from "../hub/events/eventDocument.js";
import { SqliteHubStore } from "../hub/store/sqlite/SqliteHubStore.js";
import { SystemClock } from "../runtime/SystemClock.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const EVENTS = option("events", 10_000);
const ROUNDS = option("rounds", 5);
/** The expression of `--jsonata`: a typical reshaping of the event. */
const JSONATA = args.includes("--jsonata")
  ? '{"device": device, "at": when, "t": body.temperature, "h": body.humidity, "seq": body.seq}'
  : undefined;

/** The endpoint's program: reads each body, answers 200 "ok", prints its port. */
const ENDPOINT = `
const server = require("node:http").createServer((req, res) => {
  req.resume();
  req.on("end", () => res.end("ok"));
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

/** The endpoint, a program of its own as a routed service would be (it does not share the hub's thread). */
async function endpoint(): Promise<{ url: string; close: () => Promise<void> }> {
  const child = spawn(process.execPath, ["-e", ENDPOINT], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString("utf8").trim())));
    child.once("exit", (code) => reject(new Error(`endpoint exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    close: async () => {
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** N POSTs one after another over one keep-alive connection: events per second. */
async function bare(url: string, body: string, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const post = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { "Content-Type": "application/json" },
        },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  for (let i = 0; i < 200; i++) await post(); // warm-up
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await post();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return n / seconds;
}

interface Routed {
  rate: number;
  /** Seconds the event store took to insert the events (not counted in `rate`). */
  storing: number;
  cpuPerEvent: number;
  body: string;
}

/** N events committed by the hub, then routed to `url`: events per second from the commit on. */
async function routed(url: string, n: number): Promise<Routed> {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-routes-"));
  const store = new SqliteHubStore(join(dir, "hub.db"));
  const clock = new SystemClock();
  const ids = new HubIds();
  const faults: unknown[] = [];
  const services = createHubServices({
    store,
    clock,
    ids,
    rateLimits: false,
    onRoutingError: (e) => faults.push(e),
  });
  const { state } = await bootstrapHub(store, ids, clock);
  const device = await store.devices.putDevice({
    uid: "dev:864475040523995",
    projectUid: state.project_uid,
    productUid: state.product_uid,
    provisioned: clock.now(),
    serialNumber: "pump-7",
  });
  const route = await services.routing.create(state.project_uid, {
    label: "bench",
    type: "http",
    http: {
      url,
      filter: { type: "include", files: ["data.qo", "warm.qo"] },
      ...(JSONATA ? { transform: { format: "jsonata", jsonata: JSONATA } } : {}),
    },
  });
  const record = (file: string, i: number) =>
    services.events.record({
      projectUid: state.project_uid,
      deviceUid: device.uid,
      file,
      data: {
        req: "note.add",
        app: state.project_uid,
        product: state.product_uid,
        best_id: "pump-7",
        sn: "pump-7",
        body: { temperature: 21.5 + (i % 10) / 10, humidity: 40 + (i % 7), pressure: 1013, seq: i },
      },
    });
  // Warm-up: JIT, statement cache, the connection.
  for (let i = 0; i < 500; i++) await record("warm.qo", i);
  await services.routing.settle();
  const sample = await record("sample.qo", 0); // not routed: its document sizes the bare loop's body
  let committed = 0n;
  const storing = process.hrtime.bigint();
  await store.transaction(async () => {
    for (let i = 0; i < n; i++) await record("data.qo", i);
    // Routing hears of the events once this commits: the clock starts here.
    store.afterCommit(() => {
      committed = process.hrtime.bigint();
    });
  });
  const cpu = process.cpuUsage();
  await services.routing.settle();
  const seconds = Number(process.hrtime.bigint() - committed) / 1e9;
  const used = process.cpuUsage(cpu);
  // The route keeps its newest DEFAULT_LOG_RETENTION.keepPerRoute logs (pruned as they are
  // written, which is part of what is timed): those must all be successes, and nothing pending.
  const kept = Math.min(n, DEFAULT_LOG_RETENTION.keepPerRoute);
  const logs = await store.routes.listLogs(
    state.project_uid,
    { routeUid: route.uid, files: ["data.qo"], routingStatus: ["success"], sortBy: "date", sortOrder: "asc" },
    { offset: 0, limit: n + 1 },
  );
  if (logs.length !== kept || services.routing.pending().size > 0 || faults.length > 0) {
    throw new Error(
      `expected ${n} successful deliveries (${kept} logs kept), got ${logs.length} logs, ` +
        `${services.routing.pending().size} routes pending (${faults.length} faults)`,
    );
  }
  await services.routing.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return {
    rate: n / seconds,
    storing: Number(committed - storing) / 1e9,
    cpuPerEvent: (used.user + used.system) / n,
    body: JSON.stringify(eventDocument(sample)),
  };
}

async function main(): Promise<void> {
  const ep = await endpoint();
  const rounds: { routed: Routed; bare: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const hub = await routed(ep.url, EVENTS);
    rounds.push({ routed: hub, bare: await bare(ep.url, hub.body, EVENTS) });
  }
  await ep.close();
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(rounds.map((r) => r.routed.rate / r.bare));
  console.log(
    `route delivery to a local HTTP endpoint, ${EVENTS} events x ${ROUNDS} rounds${JSONATA ? `, JSONata transform ${JSONATA}` : ""}`,
  );
  console.table(
    rounds.map((r) => ({
      "routed events/s": Math.round(r.routed.rate),
      "hub CPU us/event": Number(r.routed.cpuPerEvent.toFixed(1)),
      "bare POSTs/s": Math.round(r.bare),
      ratio: Number((r.routed.rate / r.bare).toFixed(2)),
      "event store s (not counted)": Number(r.routed.storing.toFixed(3)),
    })),
  );
  if (JSONATA) {
    console.log(`median ratio ${ratio.toFixed(2)} (JSONata route: no target)`);
    return;
  }
  console.log(`median ratio ${ratio.toFixed(2)} (target >= 0.5)`);
  process.exitCode = ratio >= 0.5 ? 0 : 1;
}

await main();
