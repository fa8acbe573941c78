// Session cost of this tree against another checkout of cardsim, paired in one process: each tree
// gets an in-process hub and one module on a fake clock, and they alternate blocks of back-to-back
// sessions (a reading, then `hub.sync`), so load from other programs falls on both alike. Prints
// CPU and wall ms per session, per block and as medians, and the ratio of this tree to the other.
// Run: npx tsx bench/clock-paired.ts OTHER_TREE [BLOCK=200] [ROUNDS=8]
// (the other tree needs node_modules: `git worktree add /tmp/old REV && ln -s $PWD/node_modules /tmp/old/`)
import { existsSync } from "node:fs";
import { resolve } from "node:path";

interface Tree {
  run(): Promise<void>;
}

async function treeAt(root: string): Promise<Tree> {
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
  sim.module.sync.onSession((o: { ok: boolean; error?: string }) => {
    if (!o.ok) throw new Error(`${root}: a session failed: ${o.error}`);
  });
  let i = 0;
  return {
    async run() {
      const added = await sim.module.request({
        req: "note.add",
        file: "sensors.qo",
        body: { temp: i++ % 50 },
      });
      if (added?.err) throw new Error(`${root}: note.add: ${added.err}`);
      await sim.module.request({ req: "hub.sync" });
      await sim.module.sync.idle();
    },
  };
}

const other = process.argv[2];
if (!other) throw new Error("give the other tree: npx tsx bench/clock-paired.ts OTHER_TREE [BLOCK] [ROUNDS]");
const BLOCK = Number(process.argv[3] ?? 200);
const ROUNDS = Number(process.argv[4] ?? 8);
const trees = { other: await treeAt(resolve(other)), this: await treeAt(resolve(".")) };
for (const tree of Object.values(trees)) for (let k = 0; k < 300; k++) await tree.run();
const cost = {
  other: { cpu: [] as number[], wall: [] as number[] },
  this: { cpu: [] as number[], wall: [] as number[] },
};
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? (["this", "other"] as const) : (["other", "this"] as const)) {
    const cpuFrom = process.cpuUsage();
    const started = performance.now();
    for (let k = 0; k < BLOCK; k++) await trees[name].run();
    const cpu = process.cpuUsage(cpuFrom);
    cost[name].cpu.push((cpu.user + cpu.system) / 1000 / BLOCK);
    cost[name].wall.push((performance.now() - started) / BLOCK);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, c] of Object.entries(cost)) {
  console.log(
    `${name} tree: CPU ms/session median ${median(c.cpu).toFixed(3)} (${c.cpu.map((x) => x.toFixed(2)).join(" ")}), wall median ${median(c.wall).toFixed(3)}`,
  );
}
const ratios = cost.this.cpu.map((x, k) => x / cost.other.cpu[k]!);
console.log(
  `this/other CPU: ${(median(cost.this.cpu) / median(cost.other.cpu)).toFixed(3)} (per round ${ratios.map((r) => r.toFixed(2)).join(" ")})`,
);
