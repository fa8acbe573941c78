// Notes per second through a whole sync into a hub whose store is PostgreSQL: queued on a module's
// flash store, sent in batches, turned into events by the hub and stored in PostgreSQL (every index
// and the event's document included), then removed from the module. The ceiling, measured in the
// same run on the same server: the very rows the sync stored, inserted again straight into a fresh
// database of the same schema by multi-row INSERTs of the sync's batch size, one transaction per
// batch. A warm-up sync runs first. Target: sync / ceiling >= 0.5 (median of the runs' ratios).
// The server: CARDSIM_TEST_POSTGRES (a URL whose user may create databases), else a throwaway
// cluster started with the server binaries (tools/throwawayPostgres.ts) and stopped at the end.
// Run: npx tsx bench/postgres.ts [--notes N] [--runs N]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { SeededRandom } from "../core/SeededRandom.js";
import { FlashKvStore } from "../firmware/storage/flash/FlashKvStore.js";
import { MemoryFlashFs } from "../firmware/storage/flash/MemoryFlashFs.js";
import { HubIds } from "../hub/HubIds.js";
import { PgHubStore } from "../hub/store/postgres/PgHubStore.js";
import { BATCH_LIMITS } from "../protocol/messages.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { startHub, type RunningHub } from "../runtime/startHub.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../tools/throwawayPostgres.js";
import { EVENT_COLUMNS, timeOneSync, type EventRow } from "./eventCeiling.js";
import { fmt, printTable } from "./stats.js";

const option = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const NOTES = option("notes", 20_000);
const RUNS = option("runs", 3);
const BATCH = BATCH_LIMITS.notes;

const admin = testPostgresUrl();
if (!admin) {
  console.log(POSTGRES_SKIP_MESSAGE);
  process.exit(0);
}

const body = (i: number) => ({
  temp: 20 + (i % 100) / 10,
  humidity: 40 + (i % 7),
  seq: i,
  site: "bench-site",
});

async function syncRate(): Promise<{ rate: number; rows: EventRow[] }> {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-pg-"));
  const url = await createTestDatabase(admin!);
  const clock = new FakeClock();
  let hub: RunningHub | undefined;
  let sim: SimulatedModule | undefined;
  try {
    hub = await startHub({
      dir,
      store: url,
      listen: "127.0.0.1:0",
      tlsListen: false,
      clock,
      ids: new HubIds(new SeededRandom(1)),
      rateLimits: false,
    });
    sim = await SimulatedModule.boot({
      clock,
      seed: "bench",
      timeKnown: true,
      flash: { store: new FlashKvStore(new MemoryFlashFs(), { capacity: 256 * 1024 * 1024 }) },
      hub: { inProcess: hub.services.sync, product: hub.credentials.product_uid },
    });
    const { seconds } = await timeOneSync(sim.module, NOTES, body);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = (
      await client.query(
        `SELECT ${EVENT_COLUMNS.join(", ")} FROM events WHERE file = 'sensors.qo' ORDER BY seq`,
      )
    ).rows as EventRow[];
    await client.end();
    if (rows.length !== NOTES) throw new Error(`${rows.length} events, expected ${NOTES}`);
    return { rate: NOTES / seconds, rows };
  } finally {
    await sim?.close();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The ceiling: the same rows into a fresh database of the hub's schema, a multi-row INSERT per batch. */
async function rawRate(stored: EventRow[]): Promise<number> {
  const url = await createTestDatabase(admin!);
  await (await PgHubStore.open(url)).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    for (let i = 0; i < stored.length; i += BATCH) {
      const slice = stored.slice(i, i + BATCH);
      const values = slice.map(
        (_, r) => `(${EVENT_COLUMNS.map((__, c) => `$${r * EVENT_COLUMNS.length + c + 1}`).join(", ")})`,
      );
      await client.query("BEGIN");
      await client.query(
        `INSERT INTO events (${EVENT_COLUMNS.join(", ")}) VALUES ${values.join(", ")} ON CONFLICT (uid) DO NOTHING`,
        slice.flatMap((row) => EVENT_COLUMNS.map((c) => row[c])),
      );
      await client.query("COMMIT");
    }
    return NOTES / ((performance.now() - started) / 1000);
  } finally {
    await client.end();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sync: number[] = [];
const raw: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const measured = await syncRate();
  sync.push(measured.rate);
  raw.push(await rawRate(measured.rows));
}
const ratios = sync.map((r, i) => r / raw[i]!);
console.log(`per run, sync / ceiling: ${ratios.map((r) => fmt(r, 2)).join(" ")}`);
printTable(
  `${NOTES} notes through one sync into PostgreSQL, medians of ${RUNS} runs, Node ${process.version}`,
  [
    { path: "raw multi-row INSERTs (ceiling)", "notes/s": fmt(median(raw)), ratio: 1, target: "-" },
    {
      path: "sync in process",
      "notes/s": fmt(median(sync)),
      ratio: fmt(median(ratios), 2),
      target: ">= 0.5",
    },
  ],
);
process.exitCode = median(ratios) >= 0.5 ? 0 : 1;
process.exit();
