// What running the fleet's own hub in a thread of its own could save (docs/fleet.md, "Both
// cores?"): workload W on the fleet's own hub (as bench/fleet.ts), its run profiled in process,
// the profile split by side (the hub's code, its group commits, the modules' and the fleet's) and
// cut at the group commits, and each commit window's work laid out on two threads: the commit
// alone (the replies wait for it), then the longer of the two sides, each with its share of the GC.
// The ratio is an upper bound: it counts no cost of the threads' messages, no wait for a message
// to arrive, and gives the hub a core of its own (the store's checkpointing thread needs one too).
//
// Run: node --import tsx bench/fleet-split.ts [--modules N] [--hours N] [--interval MICROSECONDS]
import { mkdtemp, rm } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Fleet } from "../runtime/fleet/Fleet.js";
import { SENSORS_WORKLOAD } from "../runtime/fleet/workload.js";
import { splitBySide, type CpuProfile } from "./profileSides.js";
import { fmt, printTable } from "./stats.js";

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const MODULES = Number(flag("--modules") ?? 10_000);
const HOURS = Number(flag("--hours") ?? 3);
const INTERVAL_US = Number(flag("--interval") ?? 250);

const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-fleet-split-"));
const session = new Session();
session.connect();
try {
  const fleet = await Fleet.start({ modules: MODULES, workload: SENSORS_WORKLOAD, hub: { dir } });
  let profile: CpuProfile;
  let sessions: number;
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: INTERVAL_US });
    await session.post("Profiler.start");
    const summary = await fleet.run(HOURS * 3_600_000);
    profile = (await session.post("Profiler.stop")).profile as CpuProfile;
    sessions = summary.sessions.ok + summary.sessions.failed;
  } finally {
    await fleet.close();
  }
  const split = splitBySide(profile, new URL("../", import.meta.url).href);
  const ms = (value: number) => fmt(value, 0);
  printTable(
    `Workload W, ${MODULES} modules, ${HOURS} h: the run's thread by side, first to last group commit (ms, sampled every ${INTERVAL_US} µs)`,
    [
      {
        sessions,
        "commit windows": split.windows,
        hub: ms(split.ms.hub),
        "group commits": ms(split.ms.commit),
        "modules and fleet": ms(split.ms.modules),
        GC: ms(split.ms.gc),
        idle: ms(split.ms.idle),
      },
    ],
  );
  printTable("The same work on two threads (upper bounds)", [
    {
      "one thread ms": ms(split.oneThreadMs),
      "two threads ms": ms(split.twoThreadMs),
      ratio: fmt(split.oneThreadMs / split.twoThreadMs, 3),
      "two threads, commit overlapped ms": ms(split.twoThreadOverlappedMs),
      "ratio, commit overlapped": fmt(split.oneThreadMs / split.twoThreadOverlappedMs, 3),
    },
  ]);
} finally {
  session.disconnect();
  await rm(dir, { recursive: true, force: true });
}
