// A fleet's first second: 2,000 simulated modules (runtime/SimulatedModule: module, memory flash,
// supply, radio, keys, lifecycle) booted on one fake clock in one process, then each asked for
// card.version and an hour of virtual time run past them. Measures boot time and heap per module,
// against the ceiling of the same run: the bare Module.boot of the same modules (no runtime around
// them), so the ratio says what the runtime adds.
// Run: node --expose-gc --import tsx bench/fleet-boot.ts [--modules N]
import { SeededRandom } from "../core/SeededRandom.js";
import { Module } from "../firmware/Module.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { fmt, printTable } from "./stats.js";

const arg = process.argv.indexOf("--modules");
const COUNT = arg > 0 ? Number(process.argv[arg + 1]) : 2000;
const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

async function measure<T>(
  label: string,
  boot: (clock: FakeClock, i: number) => Promise<T>,
  module: (t: T) => Module,
  close: (t: T) => Promise<void>,
) {
  const clock = new FakeClock();
  const before = heapUsed();
  const started = performance.now();
  const fleet: T[] = [];
  for (let i = 0; i < COUNT; i++) fleet.push(await boot(clock, i));
  const bootMs = performance.now() - started;
  const heap = heapUsed() - before;
  const devices = new Set<string>();
  const askStarted = performance.now();
  for (const t of fleet) {
    const reply = await module(t).request({ req: "card.version" });
    devices.add(String(reply?.["device"]));
  }
  const askMs = performance.now() - askStarted;
  const hourStarted = performance.now();
  await clock.advance(3_600_000);
  const hourMs = performance.now() - hourStarted;
  if (devices.size !== COUNT)
    throw new Error(`${label}: ${devices.size} distinct devices, expected ${COUNT}`);
  for (const t of fleet) await close(t);
  return { label, bootMs, heap, askMs, hourMs };
}

const bare = await measure(
  "Module.boot (ceiling)",
  (clock, i) =>
    Module.boot({
      clock,
      random: new SeededRandom(`fleet-${i}`),
      store: new MemoryKvStore(),
      timeKnown: true,
    }),
  (m) => m,
  (m) => m.close(),
);
const simulated = await measure(
  "SimulatedModule.boot",
  (clock, i) => SimulatedModule.boot({ clock, seed: `fleet-${i}`, timeKnown: true }),
  (s) => s.module,
  (s) => s.close(),
);

const rows = [bare, simulated].map((r) => ({
  modules: COUNT,
  boot: r.label,
  "boot ms total": fmt(r.bootMs),
  "boot µs/module": fmt((r.bootMs * 1000) / COUNT),
  "heap KiB/module": gc ? fmt(r.heap / 1024 / COUNT, 1) : "(run with --expose-gc)",
  "card.version µs/module": fmt((r.askMs * 1000) / COUNT, 1),
  "1 h of virtual time ms": fmt(r.hourMs, 1),
}));
printTable(`${COUNT} modules on one fake clock, Node ${process.version}`, rows);
const ratio = bare.bootMs / simulated.bootMs;
console.log(`boot rate: SimulatedModule at ${fmt(ratio, 2)} of bare Module.boot (target >= 0.5)`);
if (ratio < 0.5) process.exitCode = 1;
