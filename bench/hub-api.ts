/**
 * Hub API throughput: list devices and get device with 1,000 devices stored, against a bare
 * fastify route serving the same bytes in the same run (the ceiling: HTTP, routing and JSON with
 * no auth, no store). Pages of events with 100,000 stored are read from SQLite on every request
 * (nothing to cache: events keep arriving), so their ceiling is a bare fastify route that runs
 * the same page query on its own connection to the same database file and serves the parsed rows
 * (HTTP, routing, the index read and JSON, with no auth, filters or views). Target: hub / bare
 * >= 0.5 for each.
 *
 *   npx tsx bench/hub-api.ts [--seconds 3] [--concurrency 16] [--rounds 2]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import Fastify from "fastify";
import { startHub } from "../runtime/startHub.js";
import { seedHub } from "./seedHub.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SECONDS = option("seconds", 3);
const CONCURRENCY = option("concurrency", 16);
const ROUNDS = option("rounds", 2);
const DEVICES = 1000;
const EVENTS = 100_000;
/** Event pages the paging case cycles through (offsets up to 10,000 events). */
const EVENT_PAGES = 200;

const mean = (runs: Result[]): Result => ({
  rps: runs.reduce((a, r) => a + r.rps, 0) / runs.length,
  p50: runs.reduce((a, r) => a + r.p50, 0) / runs.length,
  p99: runs.reduce((a, r) => a + r.p99, 0) / runs.length,
});

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

/** Closed-loop load: CONCURRENCY keep-alive clients, each sending its next request on reply. */
async function load(base: string, paths: () => string, headers: Record<string, string>): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(base);
  const once = (path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = request({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      });
      req.on("error", reject);
      req.end();
    });
  const run = async (ms: number, record: boolean): Promise<number[]> => {
    const latencies: number[] = [];
    const end = Date.now() + ms;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          const ms = await once(paths());
          if (record) latencies.push(ms);
        }
      }),
    );
    return latencies;
  };
  await run(500, false); // warm-up: JIT, statement cache, sockets
  const started = Date.now();
  const latencies = await run(SECONDS * 1000, true);
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-hub-"));
  const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false, log: false });
  const project = hub.credentials.project_uid;
  const uids = await seedHub(hub, DEVICES, EVENTS);
  const headers = { authorization: `Bearer ${hub.credentials.token}` };
  const pages = DEVICES / 50;
  let n = 0;
  const listPath = (): string => `/v1/projects/${project}/devices?pageSize=50&pageNum=${(n++ % pages) + 1}`;
  const getPath = (): string => `/v1/projects/${project}/devices/${uids[n++ % DEVICES]}`;
  const newestPath = (): string => `/v1/projects/${project}/events?sortOrder=desc`;
  const pagePath = (): string => `/v1/projects/${project}/events?pageNum=${(n++ % EVENT_PAGES) + 1}`;

  // The ceiling: the same response bodies from a bare fastify route (parsed once, serialized per request).
  const sample = async (path: string): Promise<unknown> =>
    (await fetch(`${hub.url}${path}`, { headers })).json();
  const listBody = await sample(`/v1/projects/${project}/devices?pageSize=50&pageNum=1`);
  const getBody = await sample(`/v1/projects/${project}/devices/${uids[0]}`);
  const bare = Fastify({ logger: false });
  bare.get("/list", async () => listBody);
  bare.get("/get/:uid", async () => getBody);
  // The events' ceiling: the same page query, by hand, on a second connection to the same file.
  const db = new Database(join(dir, "hub.db"), { readonly: true });
  const page = (descending: boolean) => {
    const d = descending ? " DESC" : "";
    return db.prepare(
      `SELECT * FROM events WHERE project_key = (SELECT key FROM project_keys WHERE uid = ?)
       ORDER BY captured${d}, received${d}, rowid${d} LIMIT 51 OFFSET ?`,
    );
  };
  const eventPages = { true: page(true), false: page(false) };
  bare.get("/events", async (request) => {
    const q = request.query as { pageNum?: string; sortOrder?: string };
    const rows = eventPages[String(q.sortOrder === "desc") as "true" | "false"].all(
      project,
      (Number(q.pageNum ?? 1) - 1) * 50,
    ) as {
      uid: string;
      device_uid: string;
      file: string;
      received: number;
      captured: number;
      data: string;
    }[];
    const events = rows.slice(0, 50).map((r) =>
      Object.assign(JSON.parse(r.data) as object, {
        event: r.uid,
        device: r.device_uid,
        file: r.file,
        received: r.received,
        when: r.captured,
      }),
    );
    return { events, has_more: rows.length > 50, through: rows[Math.min(rows.length, 50) - 1]?.uid };
  });
  await bare.listen({ host: "127.0.0.1", port: 0 });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  const rows: [string, Result, Result][] = [];
  for (const [name, hubPath, barePath] of [
    ["list devices (50 of 1,000)", listPath, () => "/list"],
    ["get device", getPath, () => `/get/${uids[n++ % DEVICES]}`],
    ["newest events (50 of 100k)", newestPath, () => "/events?sortOrder=desc"],
    ["events pages 1-200 (100k)", pagePath, () => `/events?pageNum=${(n++ % EVENT_PAGES) + 1}`],
  ] as const) {
    // Alternate hub and ceiling runs so that a change in the machine's load hits both alike.
    const hubRuns: Result[] = [];
    const bareRuns: Result[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      hubRuns.push(await load(hub.url, hubPath, headers));
      bareRuns.push(await load(bareUrl, barePath, {}));
    }
    rows.push([name, mean(hubRuns), mean(bareRuns)]);
  }
  await bare.close();
  db.close();
  await hub.close();
  await rm(dir, { recursive: true, force: true });

  const f = (x: number, d = 0): string => x.toFixed(d);
  console.log(
    `hub API, ${DEVICES} devices, ${EVENTS} events, ${CONCURRENCY} keep-alive clients, ${ROUNDS} x ${SECONDS} s per side (Node ${process.version})`,
  );
  console.log(
    "operation                    | hub req/s | p50 ms | p99 ms | bare req/s | p50 ms | p99 ms | ratio",
  );
  for (const [name, h, b] of rows) {
    const ratio = h.rps / b.rps;
    console.log(
      `${name.padEnd(28)} | ${f(h.rps).padStart(9)} | ${f(h.p50, 2).padStart(6)} | ${f(h.p99, 2).padStart(6)} | ${f(b.rps).padStart(10)} | ${f(b.p50, 2).padStart(6)} | ${f(b.p99, 2).padStart(6)} | ${f(ratio, 2)} ${ratio >= 0.5 ? "(>= 0.5 target met)" : "(BELOW 0.5 target)"}`,
    );
  }
}

await main();
