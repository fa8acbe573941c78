/**
 * How much of a request's time on the link the module spends processing it: the module's CPU time
 * per request through its serial edge (line framing, CRC check, JSON, dispatch, flash commit, reply
 * with CRC), as a fraction of the time the request and its reply occupy the wire:
 *   - a UART at 9600 baud (the module's fixed rate) and 115200 baud (AUX, adapters): 10 bits a byte;
 *   - the I2C bus at 100 kHz with note-c's default 30-byte chunks: every transaction costs a
 *     start, the address byte, its payload and a stop at 9 bits a byte (8 + ACK), and the reply is
 *     read with a `[0][0]` poll then `[0][R]` queries answered `[available][R][data]`.
 * The ceiling is the wire: the ratio says how far the module is from ever being the bottleneck.
 * A second table runs whole note-c sessions on the virtual clock and reports how much faster than
 * real time the harness runs them.
 *
 *   npx tsx bench/links.ts [--count N]
 *
 * The serial figures time the module's serial session; the I2C figures time the module's I2C
 * target on the software bus (every chunk write, query and read of a note-c transaction).
 *
 * Targets on the development machine: processing p99 < 2% of wire time on every link;
 * harness >= 100x real time at 115200 baud.
 */
import { I2cTarget } from "../firmware/host/I2cTarget.js";
import { appendCrc } from "../firmware/host/RequestCrc.js";
import { SerialSession } from "../firmware/host/SerialSession.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { Scenario } from "../harness/Scenario.js";
import { SimI2cBus } from "../hil/i2c/SimI2cBus.js";
import { fmt, printTable, timeSequential } from "./stats.js";

const countArg = process.argv.indexOf("--count");
const COUNT = countArg > 0 ? Number(process.argv[countArg + 1]) : 20_000;
const I2C_HZ = 100_000;
const I2C_MTU = 30;

const encoder = new TextEncoder();
const module = (
  await SimulatedModule.boot({
    clock: new FakeClock(),
    seed: 1,
    flash: { store: new MemoryKvStore({ capacity: 1 << 30 }) },
    timeKnown: true,
  })
).module;

// The I2C path: the module's I2C target on the software bus (ideal profile), driven the way note-c
// drives it, minus note-c's deliberate pauses: chunked writes, then [0][R] queries and reads.
const i2cClock = new FakeClock();
const i2cBus = new SimI2cBus({ clock: i2cClock });
const i2cTarget = new I2cTarget(module);
await i2cBus.attach(i2cTarget);

async function i2cTransaction(line: Uint8Array): Promise<string> {
  for (let offset = 0; offset < line.length; offset += I2C_MTU) {
    const chunk = line.subarray(offset, offset + I2C_MTU);
    const frame = new Uint8Array(chunk.length + 1);
    frame[0] = chunk.length;
    frame.set(chunk, 1);
    await i2cBus.write(0x17, frame);
  }
  await i2cTarget.idle();
  let received = "";
  let available = 0;
  let eop = false;
  do {
    const requested = Math.min(available, I2C_MTU);
    await i2cBus.write(0x17, Uint8Array.of(0, requested));
    const read = await i2cBus.read(0x17, requested + 2);
    available = read.bytes[0]!;
    if (requested > 0) {
      received += i2cText.decode(read.bytes.subarray(2));
      eop = read.bytes[requested + 1] === 0x0a;
    }
  } while (available > 0 || !eop);
  return received;
}
const i2cText = new TextDecoder();

let pending: ((reply: string) => void) | undefined;
const session = new SerialSession(module, { write: (bytes) => pending?.(new TextDecoder().decode(bytes)) });

/** Bus time of one I2C transaction carrying `payload` bytes after the address: start, bytes, stop. */
const i2cTransactionBits = (payload: number) => 1 + (1 + payload) * 9 + 1;

/** Bus time (µs) of note-c sending `request` bytes and reading `reply` bytes over I2C. */
function i2cWireUs(request: number, reply: number): number {
  let bits = 0;
  for (let left = request; left > 0; left -= I2C_MTU) bits += i2cTransactionBits(1 + Math.min(I2C_MTU, left));
  // One poll to learn how much is waiting ([0][0] then a 2-byte answer), then chunked reads.
  bits += i2cTransactionBits(2) + i2cTransactionBits(2);
  for (let left = reply; left > 0; left -= I2C_MTU) {
    const r = Math.min(I2C_MTU, left);
    bits += i2cTransactionBits(2) + i2cTransactionBits(2 + r);
  }
  return (bits * 1e6) / I2C_HZ;
}

const cases: { name: string; json: (i: number) => string }[] = [
  { name: "echo (small)", json: (i) => `{"req":"echo","text":"ping ${i}"}` },
  { name: "echo (1 KB)", json: (i) => JSON.stringify({ req: "echo", text: `${i}:`.padEnd(1000, "x") }) },
  { name: "card.version", json: () => '{"req":"card.version"}' },
  { name: "env.set", json: (i) => `{"req":"env.set","name":"v${i % 50}","text":"${i}"}` },
  { name: "env.get", json: () => '{"req":"env.get","name":"v7"}' },
];

const rows: Record<string, string | number>[] = [];
let failed = false;
for (const c of cases) {
  const warmup = Math.min(2000, COUNT);
  const lines = Array.from({ length: COUNT + warmup }, (_, i) =>
    encoder.encode(appendCrc(c.json(i), i & 0xffff) + "\n"),
  );
  let replyBytes = 0;
  let errors = 0;
  const timing = await timeSequential(
    COUNT,
    async (i) => {
      const line = lines[i < 0 ? COUNT - 1 - i : i]!;
      const reply = await new Promise<string>((resolve) => {
        pending = resolve;
        session.receive(line);
      });
      if (i === 0) replyBytes = reply.length;
      if (i >= 0 && reply.includes('"err"')) errors++;
    },
    warmup,
  );
  const requestBytes = lines[0]!.length;
  const wire = {
    "9600": ((requestBytes + replyBytes) * 10 * 1e6) / 9600,
    "115200": ((requestBytes + replyBytes) * 10 * 1e6) / 115_200,
    i2c: i2cWireUs(requestBytes, replyBytes),
  };
  // The same requests through the I2C target, timed the same way.
  let i2cErrors = 0;
  const i2cTiming = await timeSequential(
    Math.min(COUNT, 10_000),
    async (i) => {
      const got = await i2cTransaction(lines[i < 0 ? COUNT - 1 - i : i]!);
      if (i >= 0 && (got.includes('"err"') || !got.endsWith("}\r\n"))) i2cErrors++;
    },
    Math.min(warmup, 1000),
  );
  errors += i2cErrors;
  const worst = Math.max(
    timing.p99us / wire["9600"],
    timing.p99us / wire["115200"],
    i2cTiming.p99us / wire.i2c,
  );
  const ok = errors === 0 && worst < 0.02;
  if (!ok) failed = true;
  rows.push({
    request: c.name,
    "bytes in/out": `${requestBytes}/${replyBytes}`,
    "p50 µs": fmt(timing.p50us, 1),
    "p99 µs": fmt(timing.p99us, 1),
    "p99/wire 9600": `${fmt((timing.p99us / wire["9600"]) * 100, 3)}%`,
    "p99/wire 115200": `${fmt((timing.p99us / wire["115200"]) * 100, 3)}%`,
    "I2C p50 µs": fmt(i2cTiming.p50us, 1),
    "I2C p99 µs": fmt(i2cTiming.p99us, 1),
    "I2C p99/wire 100k": `${fmt((i2cTiming.p99us / wire.i2c) * 100, 3)}%`,
    errors,
    ok: ok ? "yes" : "NO",
  });
}
printTable(`module processing vs wire time, ${COUNT} requests each, Node ${process.version}`, rows);
await module.close();

// Whole sessions on the virtual clock: a note-c host, its resets, pacing, and the wire timing.
const harnessRows: Record<string, string | number>[] = [];
for (const baud of [9600, 115_200]) {
  const sc = await Scenario.start({ serial: { baud }, timeKnown: true });
  const host = sc.attachNoteC();
  const started = process.hrtime.bigint();
  const requests = baud === 9600 ? 200 : 1000;
  for (let i = 0; i < requests; i++) {
    await host.request({ req: "echo", text: `${i}:`.padEnd(i % 2 ? 600 : 40, "h") });
  }
  const realMs = Number(process.hrtime.bigint() - started) / 1e6;
  const speedup = sc.elapsed() / realMs;
  if (baud === 115_200 && speedup < 100) failed = true;
  harnessRows.push({
    link: `serial ${baud} baud`,
    requests,
    "scenario time s": fmt(sc.elapsed() / 1000, 1),
    "real time s": fmt(realMs / 1000, 2),
    "× real time": fmt(speedup, 0),
  });
  await sc.close();
}
printTable("note-c sessions on the virtual clock (emulator + wire timing + receive buffer)", harnessRows);
if (failed) process.exitCode = 1;
