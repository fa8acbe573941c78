/**
 * I2C bus-level figures: how long the module takes to process a request arriving over the I2C
 * target, against the time the same exchange needs on the wire at 100 kHz (note-c's protocol with
 * its default 30-byte MTU: request chunks, one poll, reply chunks; host pauses not counted).
 * The wire time is the ceiling of the bus; a ratio well below 1 means the module never makes the
 * host wait longer than the bus itself does. Also: binary buffer COBS and MD5 throughput for the
 * largest buffer, against node:crypto's MD5 as the ceiling.
 *
 * Run: npx tsx bench/i2c.ts
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { cobsDecode, cobsEncode } from "../firmware/host/Cobs.js";
import { I2cTarget } from "../firmware/host/I2cTarget.js";
import { md5Hex } from "../core/md5.js";
import { MemoryLog } from "../firmware/ModuleLog.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import { i2cWireMicros } from "../hil/i2c/I2cHardwareProfile.js";
import { SimI2cBus } from "../hil/i2c/SimI2cBus.js";

const MTU = 30;
const BUS_HZ = 100_000;
const enc = new TextEncoder();

async function main(): Promise<void> {
  const clock = new FakeClock();
  const module = (
    await SimulatedModule.boot({
      clock,
      seed: 1,
      flash: { store: new MemoryKvStore() },
      log: new MemoryLog(),
    })
  ).module;
  const target = new I2cTarget(module);
  const bus = new SimI2cBus({ clock });
  await bus.attach(target);

  const requests = {
    "echo (40 B)": '{"req":"echo","text":"temperature 21.5 C"}',
    "card.attn query": '{"req":"card.attn"}',
    "card.binary state": '{"req":"card.binary"}',
  };
  console.log(`I2C at ${BUS_HZ / 1000} kHz, MTU ${MTU}: module processing per request vs wire time`);
  for (const [label, json] of Object.entries(requests)) {
    const bytes = enc.encode(json + "\n");
    let wireMicros = 0;
    let processing = 0;
    const rounds = 3000;
    for (let round = 0; round < rounds; round++) {
      for (let at = 0; at < bytes.length; at += MTU) {
        const chunk = Uint8Array.from([Math.min(MTU, bytes.length - at), ...bytes.subarray(at, at + MTU)]);
        const last = at + MTU >= bytes.length;
        // The request is complete with its last chunk: time the module from that write on.
        const started = performance.now();
        const w = await bus.write(0x17, chunk);
        if (last) {
          await target.idle();
          processing += performance.now() - started;
        }
        if (round === 0) wireMicros += w.micros;
      }
      // One poll, then the reply in MTU-sized reads.
      let q = await bus.write(0x17, Uint8Array.from([0, 0]));
      let r = await bus.read(0x17, 2);
      if (round === 0) wireMicros += q.micros + r.micros;
      let available = r.bytes[0]!;
      while (available > 0) {
        const want = Math.min(available, MTU);
        q = await bus.write(0x17, Uint8Array.from([0, want]));
        r = await bus.read(0x17, want + 2);
        if (round === 0) wireMicros += q.micros + r.micros;
        available = r.bytes[0]!;
      }
    }
    const perRequestUs = (processing / rounds) * 1000;
    console.log(
      `  ${label.padEnd(20)} processing ${perRequestUs.toFixed(1).padStart(7)} µs   wire ${wireMicros.toFixed(0).padStart(6)} µs   ratio ${(perRequestUs / wireMicros).toFixed(4)}`,
    );
  }

  const data = new Uint8Array(130554).map((_, i) => (i * 31 + (i >> 7)) & 0xff);
  const time = (fn: () => void, n: number) => {
    fn();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    return (performance.now() - t0) / n;
  };
  const ours = time(() => md5Hex(data), 20);
  const node = time(() => createHash("md5").update(data).digest("hex"), 20);
  const encoded = cobsEncode(data);
  const encodeMs = time(() => cobsEncode(data), 20);
  const decodeMs = time(() => cobsDecode(encoded), 20);
  const wireMs = (i2cWireMicros(encoded.length, BUS_HZ) / 1000) * (1 + 3 / MTU);
  console.log(`Binary buffer, 130554 bytes:`);
  console.log(
    `  MD5 (core/md5.ts) ${ours.toFixed(2)} ms vs node:crypto ${node.toFixed(2)} ms: ratio ${(ours / node).toFixed(2)}`,
  );
  console.log(
    `  COBS encode ${encodeMs.toFixed(2)} ms, decode ${decodeMs.toFixed(2)} ms vs ~${wireMs.toFixed(0)} ms on the I2C wire: ratio ${((encodeMs + decodeMs) / wireMs).toFixed(4)}`,
  );
  await module.close();
}

await main();
