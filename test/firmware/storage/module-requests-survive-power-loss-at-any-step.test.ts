import { describe, expect, it } from "vitest";
import { Module } from "../../../firmware/Module.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { POWER_LOSS_MODES, PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import type { KvOp, KvStore } from "../../../firmware/storage/KvStore.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { applyOps, canonical } from "./support/crashScenario.js";
import type { JsonObject } from "../../../core/json.js";

const OPTIONS = { capacity: 8192, compactionThreshold: 400 };

/** What a host does to a module's flash: every request here changes state. */
const REQUESTS: readonly (JsonObject | "compact")[] = [
  { req: "note.add", file: "sensors.qo", body: { temp: 21.5 } },
  { req: "note.add", file: "sensors.qo", body: { temp: 21.7 }, payload: "AAECAwQ=" },
  { req: "note.template", file: "sensors.qo", body: { temp: 14.1 } },
  { req: "note.add", file: "sensors.qo", body: { temp: 22.25 } },
  { req: "note.add", file: "config.db", note: "alpha", body: { mode: "eco" } },
  { req: "note.update", file: "config.db", note: "alpha", body: { mode: "off" } },
  { req: "note.add", file: "config.db", note: "beta", body: { mode: "on" } },
  { req: "note.changes", file: "config.db", tracker: "watcher" },
  { req: "note.delete", file: "config.db", note: "beta" },
  { req: "note.add", file: "local.dbx", note: "x", body: { scratch: true } },
  { req: "note.get", file: "local.dbx", note: "x", delete: true },
  { req: "note.template", file: "sensors.qo", body: { temp: 14.1, hum: 12 } },
  { req: "note.add", file: "sensors.qo", body: { temp: 23, hum: 40 } },
  "compact",
  ...Array.from({ length: 6 }, (_, i) => ({
    req: "note.add",
    file: "log.qo",
    body: { line: `tick ${i}`, n: i },
  })),
  { req: "note.changes", file: "config.db", tracker: "watcher" },
  { req: "file.delete", files: ["config.db"] },
  { req: "file.delete", files: ["log.qo"] },
  { req: "note.add", file: "sensors.qo", body: { temp: 19 } },
];

interface Run {
  acknowledged: Map<string, Uint8Array>;
  inflight: readonly KvOp[] | undefined;
  crashed: boolean;
}

async function run(fs: PowerLossFlashFs): Promise<Run> {
  const result: Run = { acknowledged: new Map(), inflight: undefined, crashed: false };
  const flash = new FlashKvStore(fs, OPTIONS);
  const tee: KvStore = {
    open: () => flash.open(),
    usage: () => flash.usage(),
    close: () => flash.close(),
    async commit(ops) {
      result.inflight = ops;
      try {
        await flash.commit(ops);
      } catch (error) {
        if (fs.powered) result.inflight = undefined;
        throw error;
      }
      applyOps(result.acknowledged, ops);
      result.inflight = undefined;
    },
  };
  try {
    const module = await Module.boot({
      clock: new FakeClock(),
      random: new SeededRandom(3),
      store: tee,
      timeKnown: true,
    });
    for (const request of REQUESTS) {
      if (request === "compact") {
        await flash.compact();
        continue;
      }
      const reply = (await module.request(request))!;
      if (!fs.powered) break;
      if (typeof reply["err"] === "string") {
        throw new Error(`${JSON.stringify(request)} failed: ${reply["err"]}`);
      }
    }
    await module.close();
  } catch (error) {
    if (fs.powered) throw error;
  }
  result.crashed = !fs.powered;
  return result;
}

describe("a module losing power during any request", () => {
  for (const mode of POWER_LOSS_MODES) {
    it(`boots with every acknowledged request's changes and none half done (${mode})`, async () => {
      const dry = new PowerLossFlashFs();
      const complete = await run(dry);
      expect(complete.crashed).toBe(false);
      for (let step = 1; step <= dry.steps; step++) {
        const fs = new PowerLossFlashFs();
        fs.failAtStep(step);
        const crashed = await run(fs);
        expect(crashed.crashed, `step ${step}`).toBe(true);
        for (const tear of mode === "torn-write" ? [0, 0.5, 0.99] : [undefined]) {
          const where = `${mode}, step ${step}${tear !== undefined ? `, tear ${tear}` : ""}`;
          const flash = fs.clone();
          flash.powerUp(mode, tear !== undefined ? { tear: (n) => Math.floor(n * tear) } : {});
          const store = new FlashKvStore(flash, OPTIONS);
          const got = canonical((await store.open()).records);
          const done = new Map(crashed.acknowledged);
          if (crashed.inflight) applyOps(done, crashed.inflight);
          expect([canonical(crashed.acknowledged), canonical(done)], where).toContain(got);
          // The module boots on it and goes on taking notes.
          const module = await Module.boot({
            clock: new FakeClock(),
            random: new SeededRandom(4),
            store,
            timeKnown: true,
          });
          const reply = (await module.request({ req: "note.add", file: "after.qo", body: { ok: true } }))!;
          expect(reply["err"], where).toBeUndefined();
          await module.close();
        }
      }
    }, 120_000);
  }
});
