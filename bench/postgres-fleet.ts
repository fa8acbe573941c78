// Sync sessions per second of a fleet of modules over HTTPS, served by one `cardsim hub` process
// and then by two over one PostgreSQL database, the modules reaching them through a round-robin
// of TLS connections on loopback (tools/roundRobinProxy.ts; the same proxy in front of the one
// process too, so that both figures pay for it). Each module (runtime/SimulatedModule, in this
// process, on one fake clock) syncs once to be provisioned, then adds --notes notes and syncs
// again: the second round is timed, --concurrency sessions at once. Every note must be exactly
// one event (checked in the database). Reported: sessions/s of each, and two / one.
// The server: CARDSIM_TEST_POSTGRES (a URL whose user may create databases), else a throwaway
// cluster started with the server binaries (tools/throwawayPostgres.ts) and stopped at the end.
// Run: npx tsx bench/postgres-fleet.ts [--modules N] [--notes N] [--concurrency N]
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { FakeClock } from "../runtime/FakeClock.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { startRoundRobinProxy } from "../tools/roundRobinProxy.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../tools/throwawayPostgres.js";
import { fmt, printTable } from "./stats.js";

const option = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MODULES = option("modules", 1000);
const NOTES = option("notes", 5);
const CONCURRENCY = option("concurrency", 50);
const CARDSIM = fileURLToPath(new URL("../bin/cardsim.js", import.meta.url));

const admin = testPostgresUrl();
if (!admin) {
  console.log(POSTGRES_SKIP_MESSAGE);
  process.exit(0);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A `cardsim hub` process on the database, HTTPS on `tlsPort`; resolves once it answers. */
function startHubProcess(dir: string, store: string, tlsPort: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ["hub", "--dir", dir, "--store", store, "--listen", "127.0.0.1:0"];
    args.push("--tls-listen", `127.0.0.1:${tlsPort}`, "--log-level", "error", "--hello-limit", "off");
    const child = spawn(process.execPath, [CARDSIM, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (/HTTP API/.test(out)) resolve(child);
    });
    child.stderr!.on("data", (d: Buffer) => process.stderr.write(d));
    child.once("exit", (code) =>
      reject(new Error(`cardsim hub exited (${code}) before it answered:\n${out}`)),
    );
  });
}

/** Runs `work` on every item, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** Sessions that failed (a connection reset) and were asked for again, per run. */
let retried = 0;

/** One sync session of the module, asked for again (at most twice) when it fails. */
async function sync(sim: SimulatedModule): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    const status = await sim.module.request({ req: "hub.sync.status" });
    if (String(status?.["status"]).includes("{sync-end}")) return;
    if (attempt === 2) throw new Error(`sync failed: ${JSON.stringify(status)}`);
    retried++;
  }
}

async function fleetRate(processes: number): Promise<{ rate: number; retried: number }> {
  retried = 0;
  const root = mkdtempSync(join(tmpdir(), "cardsim-bench-pg-fleet-"));
  const store = await createTestDatabase(admin!);
  const hubs: ChildProcess[] = [];
  const ports: number[] = [];
  const fleet: SimulatedModule[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const dir = join(root, `hub${i}`);
      if (i > 0) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        cpSync(join(root, "hub0", "credentials.json"), join(dir, "credentials.json"));
        if (existsSync(join(root, "hub0", "tls")))
          cpSync(join(root, "hub0", "tls"), join(dir, "tls"), { recursive: true });
      }
      ports.push(await freePort());
      hubs.push(await startHubProcess(dir, store, ports[i]!));
    }
    const credentials = JSON.parse(readFileSync(join(root, "hub0", "credentials.json"), "utf8")) as Record<
      string,
      string
    >;
    const proxy = await startRoundRobinProxy(
      ports.map((port) => ({ host: "127.0.0.1", port })),
      "tcp",
    );
    const clock = new FakeClock();
    const hub = {
      url: `https://localhost:${proxy.port}`,
      ca: credentials["ca_cert"]!,
      product: credentials["product_uid"]!,
    };
    for (let i = 0; i < MODULES; i++)
      fleet.push(await SimulatedModule.boot({ clock, seed: `fleet-${i}`, timeKnown: true, hub }));
    // Provisioned: the first session of each (its key stored, its project joined).
    await eachLimited(fleet, CONCURRENCY, sync);
    for (const [m, sim] of fleet.entries())
      for (let n = 0; n < NOTES; n++)
        await sim.module.request({ req: "note.add", file: "sensors.qo", body: { m, n } });
    const started = performance.now();
    await eachLimited(fleet, CONCURRENCY, sync);
    const seconds = (performance.now() - started) / 1000;
    await proxy.close();
    const db = new pg.Client({ connectionString: store });
    await db.connect();
    const counted = await db.query<{ n: number; distinct_notes: number }>(
      `SELECT count(*)::int AS n,
              count(DISTINCT (hub_doc(data)->'body'->>'m', hub_doc(data)->'body'->>'n'))::int AS distinct_notes
       FROM events WHERE file = 'sensors.qo'`,
    );
    await db.end();
    const { n, distinct_notes } = counted.rows[0]!;
    if (n !== MODULES * NOTES || distinct_notes !== n)
      throw new Error(
        `${n} events of ${distinct_notes} distinct notes, expected ${MODULES * NOTES} once each`,
      );
    return { rate: MODULES / seconds, retried };
  } finally {
    for (const sim of fleet) await sim.close();
    for (const child of hubs) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  }
}

const one = await fleetRate(1);
const two = await fleetRate(2);
const row = (hub: string, r: { rate: number; retried: number }) => ({
  hub,
  modules: MODULES,
  "notes/module": NOTES,
  concurrency: CONCURRENCY,
  "sessions/s": fmt(r.rate, 1),
  "sessions retried": r.retried,
});
printTable("HTTPS fleet on PostgreSQL", [row("one process", one), row("two processes", two)]);
console.log(`two processes / one: ${fmt(two.rate / one.rate, 2)} (every note exactly one event in both)`);
