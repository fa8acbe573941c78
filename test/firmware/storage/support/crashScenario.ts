import type { KvOp, KvStore } from "../../../../firmware/storage/KvStore.js";
import { Notebox } from "../../../../firmware/storage/Notebox.js";
import { FlashKvStore, type FlashKvStoreOptions } from "../../../../firmware/storage/flash/FlashKvStore.js";
import type { PowerLossFlashFs } from "../../../../firmware/storage/flash/PowerLossFlashFs.js";
import { SimError } from "../../../../firmware/SimError.js";

/** Store options of the scenario: a small flash that fills up, and eager compaction. */
export const SCENARIO_OPTIONS: FlashKvStoreOptions = { capacity: 1850, compactionThreshold: 300 };

export type ScenarioStep = (box: Notebox, flash: FlashKvStore) => Promise<unknown>;

const tx = (box: Notebox, fn: () => void) => box.transact(fn);
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/**
 * Adds, updates, deletes, template changes, tracker moves, configuration, explicit and automatic
 * compactions, a write refused because the flash is full and a factory reset: everything the
 * module does to its flash, at a size where the flash fills up.
 */
export const SCENARIO: readonly ScenarioStep[] = [
  (box) => tx(box, () => box.setConfig("identity", { device: "dev:864475000000001" })),
  (box) => tx(box, () => box.appendToQueue("sensors.qo", { body: { temp: 21.5 }, time: 1 })),
  (box) => tx(box, () => box.appendToQueue("sensors.qo", { body: { temp: 21.7 }, time: 2 })),
  (box) =>
    tx(box, () => {
      const file = box.ensureFile("config.db");
      box.putNote(file, { id: "alpha", body: { mode: "eco" }, time: 3, updates: 0 });
      box.putNote(file, { id: "beta", body: { mode: "on" }, payload: bytes(24, 1), time: 3, updates: 0 });
    }),
  (box) =>
    tx(box, () =>
      box.putNote(box.file("config.db")!, { id: "alpha", body: { mode: "off" }, time: 4, updates: 1 }),
    ),
  (box) =>
    tx(box, () =>
      box.setFileMeta(box.file("sensors.qo")!, {
        template: { body: { temp: 14.1 }, length: 0 },
        templateId: 1,
      }),
    ),
  (box) => tx(box, () => box.appendToQueue("sensors.qo", { body: { temp: 22 }, time: 5, template: 1 })),
  (box) => tx(box, () => box.createTracker("watcher")),
  (box) => tx(box, () => box.setTrackerPosition("watcher", "config.db", 2)),
  (box) => tx(box, () => box.removeNote(box.file("sensors.qo")!, box.file("sensors.qo")!.oldest()!.id)),
  (box) =>
    tx(box, () =>
      box.putNote(box.file("config.db")!, {
        id: "beta",
        body: { mode: "on" },
        time: 6,
        updates: 1,
        deleted: true,
      }),
    ),
  (box) =>
    tx(box, () => box.setConfig("hub", { product: "com.example.rig", mode: "periodic", outbound: 60 })),
  (_box, flash) => flash.compact(),
  (box) =>
    tx(box, () => {
      for (let i = 0; i < 6; i++)
        box.appendToQueue("log.qo", { body: { line: `boot step ${i}` }, payload: bytes(40, i), time: 7 });
    }),
  (box) => tx(box, () => box.setTrackerPosition("watcher", "config.db", 4)),
  (box) =>
    tx(box, () =>
      box.setFileMeta(box.file("sensors.qo")!, {
        template: { body: { temp: 14.1, hum: 12 }, length: 8 },
        templateId: 2,
      }),
    ),
  // Too big for the flash: refused with {file-storage-full}, nothing changes.
  (box) =>
    tx(box, () => box.appendToQueue("big.qo", { body: { blob: "x".repeat(4000) }, time: 8 })).catch(
      (error) => {
        if (!(error instanceof SimError && error.has("file-storage-full"))) throw error;
      },
    ),
  (box) =>
    tx(box, () => {
      const log = box.file("log.qo")!;
      for (const id of [...log.notes.keys()].slice(0, 4)) box.removeNote(log, id);
    }),
  (box) => tx(box, () => box.deleteFile("config.db")),
  (box) =>
    tx(box, () => box.appendToQueue("sensors.qo", { body: { temp: 23, hum: 40 }, time: 9, template: 2 })),
  (box) => tx(box, () => box.deleteTracker("watcher")),
  (box) => tx(box, () => box.setConfig("hub", undefined)),
  (box) =>
    tx(box, () => {
      for (let i = 0; i < 8; i++)
        box.appendToQueue("log.qo", { body: { line: `tick ${i}` }, payload: bytes(60, i), time: 10 });
    }),
  (box) =>
    tx(box, () => {
      const log = box.file("log.qo")!;
      for (const id of [...log.notes.keys()]) box.removeNote(log, id);
    }),
  (box) => tx(box, () => box.eraseAll()),
  (box) => tx(box, () => box.setConfig("identity", { device: "dev:864475000000002" })),
  (box) => tx(box, () => box.appendToQueue("sensors.qo", { body: { temp: 19 }, time: 11 })),
];

export interface ScenarioRun {
  /** Records of every acknowledged commit. */
  readonly acknowledged: Map<string, Uint8Array>;
  /** The batch being committed when the power went, if any. */
  readonly inflight: readonly KvOp[] | undefined;
  /** False when the scenario ran to its end without losing power. */
  readonly crashed: boolean;
}

/** Runs the scenario on `fs` until it ends or the flash loses power. */
export async function runScenario(fs: PowerLossFlashFs, options = SCENARIO_OPTIONS): Promise<ScenarioRun> {
  const acknowledged = new Map<string, Uint8Array>();
  let inflight: readonly KvOp[] | undefined;
  const flash = new FlashKvStore(fs, options);
  // Mirrors every acknowledged batch into a plain map: what the flash must hold after a crash.
  const tee: KvStore = {
    open: () => flash.open(),
    usage: () => flash.usage(),
    close: () => flash.close(),
    async commit(ops) {
      inflight = ops;
      try {
        await flash.commit(ops);
      } catch (error) {
        if (fs.powered) inflight = undefined;
        throw error;
      }
      applyOps(acknowledged, ops);
      inflight = undefined;
    },
  };
  try {
    const box = await Notebox.open(tee);
    for (const step of SCENARIO) await step(box, flash);
    await flash.close();
  } catch (error) {
    if (fs.powered) throw error;
  }
  return { acknowledged, inflight, crashed: !fs.powered };
}

export function applyOps(records: Map<string, Uint8Array>, ops: readonly KvOp[]): void {
  for (const op of ops) {
    if (op.op === "put") records.set(op.key, op.value);
    else if (op.op === "delete") records.delete(op.key);
    else for (const key of [...records.keys()]) if (key.startsWith(op.prefix)) records.delete(key);
  }
}

/** A comparable text form of a record set. */
export function canonical(records: ReadonlyMap<string, Uint8Array>): string {
  return JSON.stringify(
    [...records]
      .map(([k, v]) => [k, Buffer.from(v).toString("hex")])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
  );
}
