/**
 * Request processing speed of one module, in-process: requests/s and p50/p99 latency of
 * card.version, note.add and note.get through the full line path (bytes in, CRC checked, JSON
 * parsed, dispatched, committed to the memory store, reply serialized with CRC). The ceiling is
 * the serial wire: processing time as a fraction of the time the same request and reply take on
 * a 115200-baud UART (10 bits per byte).
 *
 *   npx tsx bench/dispatcher.ts [--count N]
 *
 * Targets on the development machine: >= 50,000 card.version/s, >= 20,000 note.add/s,
 * processing p99 < 1% of wire time.
 */
import { appendCrc } from "../firmware/host/RequestCrc.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { fmt, printTable, timeSequential } from "./stats.js";

const countArg = process.argv.indexOf("--count");
const COUNT = countArg > 0 ? Number(process.argv[countArg + 1]) : 50_000;
const BAUD = 115_200;

const encoder = new TextEncoder();
const module = (
  await SimulatedModule.boot({
    clock: new FakeClock(),
    seed: 1,
    flash: { store: new MemoryKvStore({ capacity: 1 << 30 }) },
    timeKnown: true,
  })
).module;

const line = (json: string, seq: number) => encoder.encode(appendCrc(json, seq & 0xffff));

// Seed a database note for note.get.
await module.request({ req: "note.add", file: "bench.db", note: "n1", body: { temp: 21.5, hum: 40 } });

const cases: { name: string; json: (i: number) => string }[] = [
  { name: "card.version", json: () => '{"req":"card.version"}' },
  {
    name: "note.add",
    json: (i) =>
      `{"req":"note.add","file":"sensors.qo","body":{"temp":${20 + (i % 10)}.5,"humidity":41,"n":${i}}}`,
  },
  { name: "note.get", json: () => '{"req":"note.get","file":"bench.db","note":"n1"}' },
];

const rows: Record<string, string | number>[] = [];
let failed = false;
for (const c of cases) {
  let replyBytes = 0;
  let errors = 0;
  // Request lines are built before timing: only the module's work is measured.
  const warmup = Math.min(2000, COUNT);
  const lines = Array.from({ length: COUNT + warmup }, (_, i) => line(c.json(i), i));
  const requestBytes = lines[0]!.length + 1;
  const timing = await timeSequential(
    COUNT,
    async (i) => {
      const reply = (await module.handleLine(lines[i < 0 ? COUNT - 1 - i : i]!)) ?? "";
      if (i === 0) replyBytes = reply.length;
      if (i >= 0 && reply.includes('"err"')) errors++;
    },
    warmup,
  );
  const wireUs = ((requestBytes + replyBytes) * 10 * 1e6) / BAUD;
  const target = c.name === "card.version" ? 50_000 : c.name === "note.add" ? 20_000 : undefined;
  const ok =
    errors === 0 && (target === undefined || timing.perSecond >= target) && timing.p99us / wireUs < 0.01;
  if (!ok) failed = true;
  rows.push({
    request: c.name,
    "req/s": fmt(timing.perSecond),
    "target req/s": target ?? "-",
    "p50 µs": fmt(timing.p50us, 1),
    "p99 µs": fmt(timing.p99us, 1),
    "wire µs @115200": fmt(wireUs),
    "p99 / wire": `${fmt((timing.p99us / wireUs) * 100, 3)}%`,
    errors,
    ok: ok ? "yes" : "NO",
  });
}
printTable(`dispatcher, ${COUNT} requests each, Node ${process.version}`, rows);
await module.close();
if (failed) process.exitCode = 1;
