// Workload W on a fleet: every module adds a 100-byte note to sensors.qo every 15 minutes and syncs
// on its own periodic schedule (outbound:60, inbound:240), for one simulated day, 10,000 modules by
// default (240,000 sessions, 960,000 notes). The modules are the fleet's (runtime/fleet/Fleet: each
// built by assembleModule), on one fake clock, against the fleet's own hub in this process on a
// durable SQLite file (a hub directory in the temp directory). Measures wall time, sessions per
// second, memory per module (booted, and after the day), and compares the events stored per second
// with the ceiling measured in the same run: the very event rows of the run inserted again into a
// fresh hub database of the same schema by one prepared statement, in transactions of the sync's
// batch size (and prints how long those raw inserts alone take: the floor under the wall time).
// Target (issue 26): <= 150 s wall at 10,000 modules.
//
// With `--hub URL` the modules sync with that hub instead (a `cardsim hub`, over HTTPS: `--hub-ca`,
// `--product`, or `--dir` of its credentials.json), spread over `--workers` worker threads, their
// clocks at `--speed` times real time; sessions per second and memory per module are reported,
// and the notes a session carried: a fleet sped up beyond what the machine keeps up with merges
// its late sessions (each carries the notes that waited, W's own are 4), so its sessions per
// second then count merges, not capacity (docs/performance.md, Fleet, seventh round).
//
// Prints the CPU time (user + system) per session of the run, the figure to compare under load.
//
// `--index-costs` then inserts the rows raw again with each of the events' indexes left out in
// turn (the UID key's own, each named one) and with none, and prints what each adds to the floor.
//
// Run: node --expose-gc --import tsx bench/fleet.ts [--modules N] [--days N | --hours N] [--index-costs]
//      node --import tsx bench/fleet.ts --hub https://localhost:7443 --dir D --modules 1000 --workers 2 --speed 3600x [--hours N]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteConnection } from "../hub/store/sqlite/SqliteConnection.js";
import { Fleet } from "../runtime/fleet/Fleet.js";
import { runFleet } from "../runtime/fleet/runFleet.js";
import { SENSORS_WORKLOAD } from "../runtime/fleet/workload.js";
import { readNamedInputs } from "../runtime/rigInputs.js";
import { eventIndexes, rawSqliteEventInserts, rawSqliteEventRate, type EventRow } from "./eventCeiling.js";
import { fmt, printTable } from "./stats.js";

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const MODULES = Number(flag("--modules") ?? 10_000);
const DAY = 86_400_000;
const gc = (globalThis as { gc?: () => void }).gc;
const KiB = (bytes: number) => fmt(bytes / 1024, 1);

function memory(): { heap: number; rss: number } {
  gc?.();
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

async function inProcess(): Promise<void> {
  const days = flag("--hours") ? Number(flag("--hours")) / 24 : Number(flag("--days") ?? 1);
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-fleet-"));
  try {
    const before = memory();
    const bootStarted = performance.now();
    const fleet = await Fleet.start({ modules: MODULES, workload: SENSORS_WORKLOAD, hub: { dir } });
    const bootS = (performance.now() - bootStarted) / 1000;
    const booted = memory();
    let summary;
    let afterRun = booted;
    const cpuBefore = process.cpuUsage();
    let cpu = cpuBefore;
    try {
      summary = await fleet.run(days * DAY);
    } finally {
      cpu = process.cpuUsage(cpuBefore);
      afterRun = memory();
      await fleet.close();
    }
    const rows = new SqliteConnection(join(dir, "hub.db")).db
      .prepare("SELECT * FROM events ORDER BY rowid")
      .all() as EventRow[];
    const raw = await rawSqliteEventRate(rows);
    const seconds = summary.wallMs / 1000;
    const sessions = summary.sessions.ok + summary.sessions.failed;
    const eventsPerSecond = rows.length / seconds;
    printTable(
      `Workload W, ${MODULES} modules, ${days} day(s), in-process hub on a SQLite file, Node ${process.version}`,
      [
        {
          "boot s": fmt(bootS, 1),
          "run wall s": fmt(seconds, 1),
          sessions,
          failed: summary.sessions.failed,
          "sessions/s": fmt(sessions / seconds),
          "CPU ms/session": fmt((cpu.user + cpu.system) / 1000 / sessions, 2),
          "note events": summary.events?.notes ?? 0,
          "events/s": fmt(eventsPerSecond),
          "raw inserts/s (ceiling)": fmt(raw),
          ratio: fmt(eventsPerSecond / raw, 3),
          "session wall p50/p99 ms": `${summary.latency.wallMs.p50}/${summary.latency.wallMs.p99}`,
        },
      ],
    );
    printTable("Memory per module", [
      {
        "heap KiB booted": gc ? KiB((booted.heap - before.heap) / MODULES) : "(--expose-gc)",
        "RSS KiB booted": KiB((booted.rss - before.rss) / MODULES),
        "heap KiB after the run": gc ? KiB((afterRun.heap - before.heap) / MODULES) : "(--expose-gc)",
        "RSS KiB after the run": KiB((afterRun.rss - before.rss) / MODULES),
        "RSS MiB total": fmt(afterRun.rss / 1024 / 1024),
      },
    ]);
    const expected = MODULES * 96 * days;
    if (summary.events?.notes !== expected)
      throw new Error(`${summary.events?.notes} note events, expected ${expected}`);
    console.log(
      `W at ${MODULES} modules: ${fmt(seconds, 1)} s wall (target <= 150 s at 10,000), ${fmt(sessions / seconds)} sessions/s, ` +
        `events at ${fmt(eventsPerSecond / raw, 3)} of raw SQLite inserts; ` +
        // The floor under the wall time: the run's event rows alone, inserted raw.
        `the same ${rows.length} event rows inserted raw take ${fmt(rows.length / raw, 2)} s`,
    );
    if (process.argv.includes("--index-costs")) await indexCosts(rows, rows.length / raw);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `--index-costs`: the run's event rows inserted raw again, each time with one of the events'
 * indexes left out, and with none: what each index adds to the floor under W's wall time.
 */
async function indexCosts(rows: readonly EventRow[], allSeconds: number): Promise<void> {
  const table: Record<string, string | number>[] = [
    { "left out": "nothing", "raw inserts s": fmt(allSeconds, 1) },
  ];
  for (const leftOut of [...eventIndexes(), "all"]) {
    const { seconds } = await rawSqliteEventInserts(rows, "background", leftOut);
    table.push({
      "left out": leftOut === "all" ? "every index (the table alone)" : leftOut,
      "raw inserts s": fmt(seconds, 1),
      "saved s": fmt(allSeconds - seconds, 1),
    });
  }
  printTable(
    `What each of the events' indexes adds to the raw inserts of the run's ${rows.length} rows`,
    table,
  );
}

async function remote(url: string): Promise<void> {
  const hours = Number(flag("--hours") ?? 1);
  const speed = Number((flag("--speed") ?? "3600x").replace(/x$/, ""));
  const workers = Number(flag("--workers") ?? 2);
  const named = {
    url,
    ca: flag("--hub-ca"),
    product: flag("--product"),
    credentialsDir: flag("--dir") ?? ".",
  };
  const hub = (await readNamedInputs({ hub: named }, false)).hub as {
    url: string;
    ca?: string;
    product?: string;
  };
  const before = process.memoryUsage.rss();
  let peak = before;
  const run = await runFleet({
    modules: MODULES,
    workload: SENSORS_WORKLOAD,
    hub,
    speed,
    workers,
    durationMs: hours * 3_600_000,
    onProgress: () => (peak = Math.max(peak, process.memoryUsage.rss())),
  });
  const s = run.summary;
  const sessions = s.sessions.ok + s.sessions.failed;
  printTable(
    `Workload W, ${MODULES} modules in ${workers} worker threads, ${hours} h at ${speed}x, against ${url}`,
    [
      {
        "wall s": fmt(s.wallMs / 1000, 1),
        sessions,
        failed: s.sessions.failed,
        "sessions/s": fmt(sessions / (s.wallMs / 1000), 1),
        "notes up": s.notes.up,
        "notes/session": fmt(s.notes.up / Math.max(1, sessions), 1),
        "session wall p50/p99 ms": `${s.latency.wallMs.p50}/${s.latency.wallMs.p99}`,
        "RSS KiB/module (peak, all threads)": KiB((peak - before) / MODULES),
        errors: JSON.stringify(s.errors),
      },
    ],
  );
}

const hubUrl = flag("--hub");
if (hubUrl) await remote(hubUrl);
else await inProcess();
