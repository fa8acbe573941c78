// Session cost of this tree against another checkout of cardsim, paired in one process: each tree
// gets an in-process hub and one module on a fake clock, and they alternate blocks of sessions, so
// load from other programs falls on both alike. Prints CPU and wall ms per session, per block and
// as medians, and the ratio of this tree to the other.
//
// A block is run one of two ways (`--this MODE`, `--other MODE`; both `b2b` by default):
// - `b2b`: back-to-back sessions, the clock standing still (a reading, then `hub.sync`);
// - `clocked`: the module on its own schedule (`hub.set mode:periodic outbound:5 inbound:5`), a
//   reading a minute before each sync, the clock advanced five minutes a session: what
//   `bench/clock.ts --modules 0` times, the fake clock's timers and turns included.
// `npx tsx bench/clock-paired.ts . 300 16 --this clocked` pairs this tree's clocked sessions with
// its own back-to-back ones: what the clock adds to a session.
// Run: npx tsx bench/clock-paired.ts OTHER_TREE [BLOCK=200] [ROUNDS=8] [--this MODE] [--other MODE]
// (the other tree needs node_modules: `git clone -q . /tmp/old && ln -s $PWD/node_modules /tmp/old/`)
import { existsSync } from "node:fs";
import { resolve } from "node:path";

type Mode = "b2b" | "clocked";
const MINUTE = 60_000;
const SYNC_EVERY = 5 * MINUTE;

interface Tree {
  /** Runs `count` sessions; resolves once they are over. */
  run(count: number): Promise<void>;
}

async function treeAt(root: string, mode: Mode): Promise<Tree> {
  const hubFile = ["runtime/InProcessHub.ts", "runtime/startInProcessHub.ts"].find((f) =>
    existsSync(resolve(root, f)),
  );
  if (!hubFile) throw new Error(`${root}: no runtime/InProcessHub.ts: not a cardsim tree`);
  const { FakeClock } = await import(resolve(root, "runtime/FakeClock.ts"));
  const { InProcessHub } = await import(resolve(root, hubFile));
  const { SimulatedModule } = await import(resolve(root, "runtime/SimulatedModule.ts"));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const hub = await InProcessHub.start({ clock });
  const sim = await SimulatedModule.boot({ clock, seed: "clock-0", timeKnown: true, hub: hub.connection() });
  let sessions = 0;
  sim.module.sync.onSession((o: { ok: boolean; error?: string }) => {
    if (!o.ok) throw new Error(`${root}: a session failed: ${o.error}`);
    sessions++;
  });
  let i = 0;
  const reading = async () => {
    const added = await sim.module.request({ req: "note.add", file: "sensors.qo", body: { temp: i++ % 50 } });
    if (added?.err) throw new Error(`${root}: note.add: ${added.err}`);
  };
  const backToBack = async () => {
    await reading();
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
  };
  // Warm-up: both ends run compiled code.
  for (let k = 0; k < 300; k++) await backToBack();
  if (mode === "b2b")
    return {
      async run(count) {
        for (let k = 0; k < count; k++) await backToBack();
      },
    };
  const minutes = SYNC_EVERY / MINUTE;
  const set = await sim.module.request({
    req: "hub.set",
    mode: "periodic",
    outbound: minutes,
    inbound: minutes,
  });
  if (set?.err) throw new Error(`${root}: hub.set: ${set.err}`);
  // The world's reading a minute before each scheduled sync.
  const tick = () => {
    clock.setTimer(tick, SYNC_EVERY);
    reading().catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
  };
  clock.setTimer(tick, SYNC_EVERY - MINUTE);
  return {
    async run(count) {
      const until = sessions + count;
      await clock.advance(count * SYNC_EVERY);
      await sim.module.sync.idle();
      if (sessions !== until)
        throw new Error(`${root}: ${sessions - until + count} sessions, expected ${count}`);
    },
  };
}

const args = process.argv.slice(2);
const option = (name: string): Mode => {
  const i = args.indexOf(name);
  if (i < 0) return "b2b";
  const [value] = args.splice(i, 2).slice(1);
  if (value !== "b2b" && value !== "clocked")
    throw new Error(`${name} takes b2b or clocked, not ${String(value)}`);
  return value;
};
const modes = { this: option("--this"), other: option("--other") };
const other = args[0];
if (!other)
  throw new Error(
    "give the other tree: npx tsx bench/clock-paired.ts OTHER_TREE [BLOCK] [ROUNDS] [--this MODE] [--other MODE]",
  );
const BLOCK = Number(args[1] ?? 200);
const ROUNDS = Number(args[2] ?? 8);
const trees = {
  other: await treeAt(resolve(other), modes.other),
  this: await treeAt(resolve("."), modes.this),
};
const cost = {
  other: { cpu: [] as number[], wall: [] as number[] },
  this: { cpu: [] as number[], wall: [] as number[] },
};
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? (["this", "other"] as const) : (["other", "this"] as const)) {
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    await trees[name].run(BLOCK);
    const cpu = process.cpuUsage(cpuFrom);
    cost[name].cpu.push((cpu.user + cpu.system) / 1000 / BLOCK);
    cost[name].wall.push((performance.now() - started) / BLOCK);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, c] of Object.entries(cost)) {
  console.log(
    `${name} tree (${modes[name as keyof typeof modes]}): CPU ms/session median ${median(c.cpu).toFixed(3)} (${c.cpu.map((x) => x.toFixed(2)).join(" ")}), wall median ${median(c.wall).toFixed(3)}`,
  );
}
const ratios = cost.this.cpu.map((x, k) => x / cost.other.cpu[k]!);
console.log(
  `this/other CPU: ${(median(cost.this.cpu) / median(cost.other.cpu)).toFixed(3)} (per round ${ratios.map((r) => r.toFixed(2)).join(" ")})`,
);
