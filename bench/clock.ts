// Simulated time, fast: modules and an in-process hub (runtime/InProcessHub: in-memory SQLite,
// native Ed25519) on one fake clock.
//
// 1. One module syncing every 5 minutes for 30 simulated days on its own schedule (`hub.set
//    mode:periodic outbound:5 inbound:5`; 8,640 sessions, each carrying the reading the world
//    added in the minute before), against the ceiling measured in the same run: the same number of
//    sessions back to back with no clock (a reading and `hub.sync`: pure session cost). Target:
//    < 3 s of wall time (issue 26; issue 10 asked < 10 s).
// 2. A fleet: 100 modules on one clock against one hub, each adding a note every hour and syncing
//    once a day on its schedule (`outbound:1440 inbound:1440`, module i configured at i × 14 min
//    24 s past midnight, so the day's sessions are spread out), for 30 days. Reported as
//    module × days per wall second. Target: >= 3,000.
//
// Both parts are timed after 300 back-to-back sessions. `--warm-days N` (default 0) runs N
// simulated days of each part's own sessions first, untimed (part 1: on the module's schedule, its
// timers and the fake clock's turns; the ceiling: as many back to back): the figures of a hub and a
// module that have been up a while. The target is read with the default: part 1 then pays the
// process's warm-up of the clocked path (about 1 s of CPU under load on 2026-11-28), as a run of
// 30 days from a fresh process does; the ceiling, run after it, does not.
//
// `--before N` also runs N back-to-back sessions the way an in-process world ran them before
// (Ed25519 in JavaScript at both ends, the hub on a SQLite file in the temp directory), against N
// of today's, in the same run, and prints both.
// Run: npx tsx bench/clock.ts [--days N] [--modules N] [--before N] [--warm-days N]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../core/Clock.js";
import type { JsonObject } from "../core/json.js";
import { SeededCrypto } from "../core/SeededCrypto.js";
import { SeededRandom } from "../core/SeededRandom.js";
import { bootstrapHub } from "../hub/bootstrap.js";
import { HubIds } from "../hub/HubIds.js";
import { createHubServices } from "../hub/HubServices.js";
import { SqliteHubStore } from "../hub/store/sqlite/SqliteHubStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { SeededNodeCrypto } from "../runtime/SeededNodeCrypto.js";
import { InProcessHub } from "../runtime/InProcessHub.js";
import { fmt, printTable } from "./stats.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DAYS = arg("--days", 30);
const MODULES = arg("--modules", 100);
const BEFORE = arg("--before", 0);
const WARM_DAYS = arg("--warm-days", 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SYNC_EVERY = 5 * MINUTE;
/** Part 1's target in seconds of wall time (issue 26). */
const ONE_MODULE_TARGET_S = 3;

async function req(sim: SimulatedModule, request: JsonObject): Promise<JsonObject> {
  const reply = await sim.module.request(request);
  if (!reply || typeof reply["err"] === "string")
    throw new Error(`${String(request["req"])}: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * Runs `work` every `period` ms of the clock's time from `offset` on (a repeating fake-clock timer);
 * returns a function that stops it. The world's readings; the syncs are the module's own.
 */
function everyPeriod(clock: Clock, period: number, offset: number, work: () => Promise<unknown>): () => void {
  let timer = clock.setTimer(tick, offset);
  let stopped = false;
  function tick(): void {
    if (stopped) return;
    timer = clock.setTimer(tick, period);
    work().catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
  }
  return () => {
    stopped = true;
    clock.clearTimer(timer);
  };
}

/** A reading, then a sync: what one module does every `period`. */
const readingAndSync = (sim: SimulatedModule, i: number) => async () => {
  await req(sim, { req: "note.add", file: "sensors.qo", body: { temp: 20 + (i++ % 50) / 10 } });
  await req(sim, { req: "hub.sync" });
};

interface World {
  clock: FakeClock;
  hub: InProcessHub;
  modules: SimulatedModule[];
  sessions: { ok: number; failed: number; notesUp: number };
  close(): Promise<void>;
}

async function world(count: number): Promise<World> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const hub = await InProcessHub.start({ clock });
  const sessions = { ok: 0, failed: 0, notesUp: 0 };
  const modules: SimulatedModule[] = [];
  for (let i = 0; i < count; i++) {
    const sim = await SimulatedModule.boot({
      clock,
      seed: `clock-${i}`,
      timeKnown: true,
      hub: hub.connection(),
    });
    sim.module.sync.onSession((o) => {
      if (o.ok) sessions.ok++;
      else sessions.failed++;
      sessions.notesUp += o.traffic.notes_sent;
    });
    modules.push(sim);
  }
  return {
    clock,
    hub,
    modules,
    sessions,
    async close() {
      for (const sim of modules) await sim.close();
      await hub.close();
    },
  };
}

/** Part 1: one module, a reading and a sync every 5 minutes for DAYS days. */
/** CPU seconds of this process since `from` (user + system): less sensitive to other load than wall time. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
};

async function oneModule(): Promise<{ seconds: number; cpu: number; sessions: number }> {
  const w = await world(1);
  try {
    const sim = w.modules[0]!;
    // Warm-up: both ends run compiled code, as a hub that has been up for a while does.
    const warm = readingAndSync(sim, 0);
    for (let i = 0; i < 300; i++) {
      await warm();
      await sim.module.sync.idle();
    }
    // The module's own schedule syncs every 5 minutes; a reading arrives a minute before each.
    const minutes = SYNC_EVERY / MINUTE;
    await req(sim, { req: "hub.set", mode: "periodic", outbound: minutes, inbound: minutes });
    let n = 0;
    const stop = everyPeriod(w.clock, SYNC_EVERY, SYNC_EVERY - MINUTE, () =>
      req(sim, { req: "note.add", file: "sensors.qo", body: { temp: 20 + (n++ % 50) / 10 } }),
    );
    // The clocked path warm too: WARM_DAYS on the schedule, not timed.
    await w.clock.advance(WARM_DAYS * DAY);
    await sim.module.sync.idle();
    w.sessions.ok = 0;
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    await w.clock.advance(DAYS * DAY);
    await sim.module.sync.idle();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSince(cpuFrom);
    stop();
    if (w.sessions.failed > 0) throw new Error(`${w.sessions.failed} sessions failed`);
    return { seconds, cpu, sessions: w.sessions.ok };
  } finally {
    await w.close();
  }
}

/** The ceiling of part 1: the same sessions back to back, the clock standing still. */
async function backToBack(count: number): Promise<{ seconds: number; cpu: number }> {
  const w = await world(1);
  try {
    const sim = w.modules[0]!;
    const session = readingAndSync(sim, 0);
    const run = async () => {
      await session();
      await sim.module.sync.idle();
    };
    // As part 1: 300 sessions, then as many as its warm days hold.
    for (let i = 0; i < 300 + (WARM_DAYS * DAY) / SYNC_EVERY; i++) await run();
    w.sessions.ok = 0;
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < count; i++) await run();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSince(cpuFrom);
    if (w.sessions.ok !== count) throw new Error(`${w.sessions.ok} sessions, expected ${count}`);
    return { seconds, cpu };
  } finally {
    await w.close();
  }
}

/** Part 2: MODULES modules, a note an hour each and a sync a day each (their schedules), for DAYS days. */
async function fleet(): Promise<{ seconds: number; cpu: number; sessions: number; events: number }> {
  const w = await world(MODULES);
  try {
    const stops = w.modules.map((sim, i) => {
      let n = 0;
      const offset = Math.floor((i * DAY) / MODULES);
      // Each module's own schedule from its offset on: a sync a day.
      w.clock.setTimer(
        () => void req(sim, { req: "hub.set", mode: "periodic", outbound: 1440, inbound: 1440 }),
        offset,
      );
      return everyPeriod(w.clock, HOUR, (offset % HOUR) + 1, () =>
        req(sim, { req: "note.add", file: "sensors.qo", body: { temp: 20 + (n++ % 50) / 10 } }),
      );
    });
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    await w.clock.advance(DAYS * DAY);
    for (const sim of w.modules) await sim.module.sync.idle();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSince(cpuFrom);
    for (const stop of stops) stop();
    if (w.sessions.failed > 0) throw new Error(`${w.sessions.failed} sessions failed`);
    return { seconds, cpu, sessions: w.sessions.ok, events: w.sessions.notesUp };
  } finally {
    await w.close();
  }
}

/**
 * `count` back-to-back sessions (a reading and a sync, 5 minutes of clock apart) of one module:
 * `before` as in-process worlds ran them before (JavaScript Ed25519, hub on a file), else as now.
 */
async function sessionsAs(before: boolean, count: number): Promise<{ seconds: number; cpu: number }> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-clock-"));
  const store = new SqliteHubStore(before ? join(dir, "hub.db") : ":memory:");
  const ids = new HubIds(new SeededRandom(11));
  const services = createHubServices({
    store,
    clock,
    ids,
    rateLimits: false,
    ...(before ? {} : { crypto: new SeededNodeCrypto() }),
  });
  const { state } = await bootstrapHub(store, ids, clock);
  const sim = await SimulatedModule.boot({
    clock,
    seed: "before",
    timeKnown: true,
    hub: { inProcess: services.sync, product: state.product_uid },
    ...(before ? { crypto: new SeededCrypto(new SeededRandom("before/keys/boot0")) } : {}),
  });
  try {
    const session = readingAndSync(sim, 0);
    const run = async () => {
      await session();
      await sim.module.sync.idle();
      await clock.advance(SYNC_EVERY);
    };
    for (let i = 0; i < 200; i++) await run();
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < count; i++) await run();
    return { seconds: (performance.now() - started) / 1000, cpu: cpuSince(cpuFrom) };
  } finally {
    await sim.close();
    await services.routing.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (BEFORE > 0) {
  const rows = [];
  for (const before of [true, false, true, false]) {
    const r = await sessionsAs(before, BEFORE);
    rows.push({
      world: before ? "before: JS Ed25519, hub on a file" : "now: native Ed25519, hub in memory",
      sessions: BEFORE,
      "wall ms/session": fmt((r.seconds * 1000) / BEFORE, 3),
      "CPU ms/session": fmt((r.cpu * 1000) / BEFORE, 3),
    });
  }
  printTable("Back-to-back sessions, before and now (alternated)", rows);
}

const one = await oneModule();
const ceiling = await backToBack(one.sessions);
const many = await fleet();
const moduleDays = (MODULES * DAYS) / many.seconds;
printTable(`Simulated time on one fake clock, in-process hub, Node ${process.version}`, [
  {
    run: `1 module, sync every 5 min, ${DAYS} days`,
    sessions: one.sessions,
    "wall s": fmt(one.seconds, 2),
    "CPU s": fmt(one.cpu, 2),
    "ms/session": fmt((one.seconds * 1000) / one.sessions, 3),
    target: `< ${ONE_MODULE_TARGET_S} s`,
  },
  {
    run: "same sessions back to back, no clock (ceiling)",
    sessions: one.sessions,
    "wall s": fmt(ceiling.seconds, 2),
    "CPU s": fmt(ceiling.cpu, 2),
    "ms/session": fmt((ceiling.seconds * 1000) / one.sessions, 3),
    target: `ratio ${fmt(ceiling.seconds / one.seconds, 2)}`,
  },
  {
    run: `${MODULES} modules, note hourly, sync daily, ${DAYS} days`,
    sessions: many.sessions,
    "wall s": fmt(many.seconds, 2),
    "CPU s": fmt(many.cpu, 2),
    "ms/session": fmt((many.seconds * 1000) / many.sessions, 3),
    target: `${fmt(moduleDays)} module-days/s (>= 3000)`,
  },
]);
const expectedEvents = MODULES * DAYS * 24;
if (one.sessions !== (DAYS * DAY) / SYNC_EVERY) throw new Error(`${one.sessions} sessions in part 1`);
// A module's first sync is a day after its offset: 29 or 30 in 30 days.
if (
  many.sessions < MODULES * (DAYS - 1) ||
  many.sessions > MODULES * DAYS ||
  many.events < expectedEvents - MODULES * 48
)
  throw new Error(`fleet: ${many.sessions} sessions, ${many.events} events`);
console.log(
  `one module: ${fmt(one.seconds, 2)} s (target < ${ONE_MODULE_TARGET_S} s), ${fmt(ceiling.seconds / one.seconds, 2)} of back-to-back sessions; ` +
    `fleet: ${fmt(moduleDays)} module-days per wall second (target >= 3000)`,
);
if (one.seconds >= ONE_MODULE_TARGET_S || moduleDays < 3000) process.exitCode = 1;
