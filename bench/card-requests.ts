// Throughput of card/hub/env requests in-process, against the ceiling of the same run: `echo`,
// the cheapest request through the same dispatcher and transaction path. Also how long a month
// of supply history takes to record and how much of it is kept.
// Run: npx tsx bench/card-requests.ts
import type { Module } from "../firmware/Module.js";
import { SimulatedModule } from "../runtime/SimulatedModule.js";
import { SimPowerSource } from "../firmware/PowerSource.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../runtime/FakeClock.js";
import type { JsonObject } from "../core/json.js";

async function rate(module: Module, req: JsonObject, n: number): Promise<number> {
  for (let i = 0; i < n / 10; i++) await module.request(req);
  const start = performance.now();
  for (let i = 0; i < n; i++) await module.request(req);
  return n / ((performance.now() - start) / 1000);
}

const clock = new FakeClock();
const power = new SimPowerSource();
const module = (
  await SimulatedModule.boot({
    clock,
    seed: 1,
    flash: { store: new MemoryKvStore() },
    power,
    timeKnown: true,
  })
).module;
await module.request({ req: "card.voltage", on: true, mode: "lipo" });
await module.request({
  req: "hub.set",
  mode: "periodic",
  outbound: 60,
  voutbound: "usb:30;high:60;normal:90;low:240;dead:0",
});
await module.request({ req: "env.default", name: "interval", text: "60" });

// A month of supply history with a change every minute: trend analysis reads 720 hours.
const minutes = 31 * 24 * 60;
const historyStart = performance.now();
for (let minute = 0; minute < minutes; minute++) {
  power.volts = 3.6 + (minute % 60) / 1000;
  await clock.advance(60_000);
}
const historyMs = performance.now() - historyStart;

const N = 20_000;
const ceiling = await rate(module, { req: "echo", text: "x" }, N);
console.log(`ceiling {"req":"echo"}: ${Math.round(ceiling)} req/s`);
for (const req of [
  { req: "card.version" },
  { req: "card.status" },
  { req: "card.voltage" },
  { req: "card.voltage", hours: 24 },
  { req: "hub.get" },
  { req: "hub.set", outbound: 30 },
  { req: "env.get", name: "interval" },
  { req: "env.get" },
]) {
  const r = await rate(module, req, N);
  console.log(`${JSON.stringify(req)}: ${Math.round(r)} req/s (${(r / ceiling).toFixed(2)} of ceiling)`);
}
const { points, hours } = module.voltage.retained;
console.log(
  `supply history: ${minutes} changes over 31 days recorded in ${historyMs.toFixed(0)} ms ` +
    `(fake-clock advance included); retained ${points} exact points and ${hours} hourly readings`,
);
await module.close();
