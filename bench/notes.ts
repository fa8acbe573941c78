/**
 * Notes and templates, in-process through the full line path (bytes in, CRC checked, parsed,
 * dispatched, committed to the memory store, reply out): requests/s and p50/p99 latency of
 * note.add without and with a template, note.get of a templated note, note.changes batches over
 * a large notefile; and flash bytes per stored note, JSON against templated.
 *
 * The ceiling is the serial wire: processing time as a fraction of the time the same request and
 * reply take on a 115200-baud UART (10 bits per byte). Flash use is compared with the JSON form.
 *
 *   npx tsx bench/notes.ts [--count N]
 *
 * Targets: >= 20,000 note.add/s with or without a template; processing p99 < 1% of wire time.
 */
import { appendCrc } from "../firmware/host/RequestCrc.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";

const countArg = process.argv.indexOf("--count");
const COUNT = countArg > 0 ? Number(process.argv[countArg + 1]) : 20_000;
const BAUD = 115_200;
const encoder = new TextEncoder();

const store = new MemoryKvStore({ capacity: 1 << 30 });
const module = (
  await SimulatedModule.boot({
    clock: new FakeClock(),
    seed: 1,
    flash: { store },
    timeKnown: true,
  })
).module;
const setup = async (req: object) => {
  const reply = await module.request(req as never);
  if (reply?.["err"]) throw new Error(`${JSON.stringify(req)}: ${String(reply["err"])}`);
};
const readings = { new_vals: true, temperature: 14.1, humidity: 11, pump_state: "8", vals: [12.1] };
await setup({ req: "note.template", file: "tpl.qo", body: readings });
await setup({ req: "note.template", file: "compact.qo", body: readings, format: "compact" });
await setup({ req: "note.template", file: "tpl.db", body: readings });
await setup({
  req: "note.add",
  file: "tpl.db",
  note: "n1",
  body: { temperature: 21.5, humidity: 40, vals: [1, 2] },
});

const body = (i: number) =>
  `{"new_vals":${i % 2 === 0},"temperature":${20 + (i % 10)}.25,"humidity":${i % 100},"pump_state":"on","vals":[${i % 7},1.5]}`;

interface Case {
  name: string;
  json: (i: number) => string;
  count?: number;
  target?: number;
}
const cases: Case[] = [
  {
    name: "note.add (JSON)",
    json: (i) => `{"req":"note.add","file":"json.qo","body":${body(i)}}`,
    target: 20_000,
  },
  {
    name: "note.add (template)",
    json: (i) => `{"req":"note.add","file":"tpl.qo","body":${body(i)}}`,
    target: 20_000,
  },
  {
    name: "note.add (compact)",
    json: (i) => `{"req":"note.add","file":"compact.qo","body":${body(i)}}`,
    target: 20_000,
  },
  { name: "note.get (template)", json: () => '{"req":"note.get","file":"tpl.db","note":"n1"}' },
  {
    // Every call returns the next 25 notes of tpl.qo (COUNT notes long by now) and moves on.
    name: "note.changes (25)",
    json: (i) => `{"req":"note.changes","file":"tpl.qo","tracker":"t${i < 0 ? "w" : Math.floor(i / 400)}"}`,
    count: Math.floor(COUNT / 25),
  },
];

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const rows: Record<string, string | number>[] = [];
let failed = false;
for (const c of cases) {
  const count = c.count ?? COUNT;
  const warmup = Math.min(500, count);
  const lines = Array.from({ length: count + warmup }, (_, i) =>
    encoder.encode(appendCrc(c.json(i < count ? i : -1 - (i - count)), i & 0xffff)),
  );
  for (let i = 0; i < warmup; i++) await module.handleLine(lines[count + i]!);
  const samples = new Float64Array(count);
  let errors = 0;
  let wireBytes = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    const reply = (await module.handleLine(lines[i]!)) ?? "";
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
    if (reply.includes('"err"')) errors++;
    wireBytes += lines[i]!.length + 1 + reply.length;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  samples.sort();
  const perSecond = count / seconds;
  const wireUs = (wireBytes / count) * 10 * (1e6 / BAUD);
  const p99 = percentile(samples, 99);
  const ok = errors === 0 && (c.target === undefined || perSecond >= c.target) && p99 / wireUs < 0.01;
  if (!ok) failed = true;
  rows.push({
    request: c.name,
    "req/s": Math.round(perSecond),
    "target req/s": c.target ?? "-",
    "p50 µs": Number(percentile(samples, 50).toFixed(1)),
    "p99 µs": Number(p99.toFixed(1)),
    "wire µs @115200": Math.round(wireUs),
    "p99 / wire": `${((p99 / wireUs) * 100).toFixed(3)}%`,
    errors,
    ok: ok ? "yes" : "NO",
  });
}

// Flash bytes per note as the store counts them (key, value and per-record overhead).
const flash: Record<string, string | number>[] = [];
const perNote = (file: string) => {
  let bytes = 0;
  let notes = 0;
  for (const [key, value] of store.records) {
    if (key.startsWith(`n\u001f${file}\u001f`)) {
      bytes += key.length + value.length + 16;
      notes++;
    }
  }
  return bytes / notes;
};
const jsonBytes = perNote("json.qo");
for (const file of ["json.qo", "tpl.qo", "compact.qo"]) {
  const bytes = perNote(file);
  flash.push({
    notefile: file,
    "flash bytes/note": Number(bytes.toFixed(1)),
    "vs JSON": `${((bytes / jsonBytes) * 100).toFixed(0)}%`,
  });
}

console.log(`\nnotes and templates, ${COUNT} requests, Node ${process.version}`);
console.table(rows);
console.table(flash);
if (failed) {
  console.log("\nsome targets were missed");
  process.exitCode = 1;
}
