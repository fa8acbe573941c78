import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import { MemoryLog } from "../../../firmware/ModuleLog.js";
import { inspectFlash } from "../../../firmware/storage/flash/inspectFlash.js";
import { openFlashStore } from "../../../hil/storage/openFlashStore.js";
import { NodeFlashFs } from "../../../hil/storage/NodeFlashFs.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { runCli } from "../../support/cliProcess.js";
import { TestServices } from "../../hub/support/servicesFixture.js";

/**
 * The flash directories under test/fixtures/flash/ were written once by `cardsim module` of an
 * earlier build (test/fixtures/make-fixtures.ts) and are never regenerated: this build must boot
 * on them with every note, template and setting they hold. The expectations are written out here,
 * not recomputed by the code under test. A new format gets a new folder beside these; these stay.
 */
const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "flash");
const T0 = Date.UTC(2026, 0, 1) / 1000;

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A copy of a committed flash directory (a module writes to its flash; the fixture stays as committed). */
async function copyOf(fixture: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "cardsim-fixture-"));
  roots.push(root);
  const dir = join(root, "flash");
  await cp(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

/**
 * Boots a module on a flash directory the way `cardsim module --flash DIR` does (the capacity is
 * the one flash.json says), linked to an in-process hub on the same clock.
 */
async function bootOn(dir: string) {
  const clock = new FakeClock(Date.UTC(2026, 0, 2));
  const hub = await TestServices.start({ clock, seed: 5 });
  const log = new MemoryLog();
  const sim = await SimulatedModule.boot({
    clock,
    seed: "a-later-boot",
    timeKnown: true,
    log,
    flash: { store: await openFlashStore(dir), images: new NodeFlashFs(dir) },
    hub: { inProcess: hub.services.sync, product: hub.productUid },
  });
  const req = async (request: JsonObject): Promise<JsonObject> => {
    const reply = await sim.module.request(request);
    if (!reply) throw new Error("no reply");
    return reply;
  };
  /** Syncs to the hub and returns the events that arrived there, oldest first (the user's notefiles). */
  const syncedEvents = async () => {
    // The fixture's own product is not on this hub: send the notes to the hub's product.
    expect(await req({ req: "hub.set", product: hub.productUid })).toEqual({});
    expect(await req({ req: "hub.sync" })).toEqual({});
    await sim.module.sync.idle();
    expect(await req({ req: "hub.sync.status" })).not.toHaveProperty("alert");
    const page = await hub.store.telemetry.listEvents(
      hub.projectUid,
      { deviceUids: [sim.module.deviceUid] },
      { by: "modified", descending: false },
      { offset: 0, limit: 1000 },
    );
    return page.items
      .filter((e) => !e.file.startsWith("_"))
      .map((e) => ({
        req: e.data["req"],
        file: e.file,
        ...(e.data["note"] !== undefined ? { note: e.data["note"] } : {}),
        when: e.whenSec,
        ...(e.data["body"] !== undefined ? { body: e.data["body"] } : {}),
        ...(e.data["payload"] !== undefined ? { payload: e.data["payload"] } : {}),
      }));
  };
  const close = async () => {
    await sim.close();
    await hub.close();
  };
  return { sim, req, log, syncedEvents, close };
}

describe("a flash directory of format v1 with notes, a template, a deleted note and settings", () => {
  it("boots without repairs and answers every request as when it was written", async () => {
    const dir = await copyOf("v1/notes");
    const m = await bootOn(dir);
    try {
      expect(m.log.lines.filter((l) => l.level === "warn")).toEqual([]);
      expect(m.sim.module.notebox.file("_health.qo")).toBeUndefined();
      expect(m.sim.module.deviceUid).toBe("dev:871791162143593");
      expect(await m.req({ req: "hub.get" })).toMatchObject({
        device: "dev:871791162143593",
        product: "com.example.fixtures:flash",
        mode: "periodic",
        outbound: 60,
        inbound: 240,
        sn: "rig-7",
      });
      expect(await m.req({ req: "env.get" })).toEqual({
        body: { label: "blue", interval: "300" },
        time: T0 + 4,
      });
      expect(await m.req({ req: "env.get", name: "label" })).toEqual({ text: "blue", time: T0 + 3 });
      expect(await m.req({ req: "file.changes" })).toEqual({
        total: 7,
        info: {
          "log.qo": { total: 1 },
          "readings.qo": { total: 2 },
          "sensors.qo": { total: 3 },
          "settings.db": { total: 1 },
        },
      });
      expect(await m.req({ req: "note.changes", file: "settings.db", deleted: true })).toEqual({
        total: 1,
        notes: {
          mode: { body: { mode: "boost", level: 2 }, time: T0 + 13 },
          old: { body: { x: 1 }, time: T0 + 12, deleted: true },
        },
      });
      expect(await m.req({ req: "note.get", file: "settings.db", note: "mode" })).toEqual({
        body: { mode: "boost", level: 2 },
        time: T0 + 13,
      });
      expect((await m.req({ req: "note.get", file: "settings.db", note: "old" }))["err"]).toMatch(
        /\{note-noexist\}/,
      );
      expect(await m.req({ req: "note.template", file: "readings.qo", verify: true })).toEqual({
        template: true,
        body: { temp: 14.1, count: 12, label: "20", ok: true },
        bytes: 57,
      });
      // The template still governs the notefile: a note is stored in its compact form.
      expect(
        await m.req({
          req: "note.add",
          file: "readings.qo",
          body: { temp: 1.5, count: 1, label: "new", ok: true },
        }),
      ).toEqual({ total: 3, template: true });

      // Every queued note leaves for the hub as it was added (the templated ones decoded).
      expect(await m.syncedEvents()).toEqual([
        {
          req: "note.add",
          file: "log.qo",
          when: T0 + 15,
          body: { text: "héllo, wörld ✓" },
          payload: "AAECAwQ=",
        },
        {
          req: "note.add",
          file: "readings.qo",
          when: T0 + 9,
          body: { temp: 20.5, count: 3, label: "kitchen", ok: true },
        },
        {
          req: "note.add",
          file: "readings.qo",
          when: T0 + 10,
          body: { temp: -4.25, count: -7, label: "porch" },
        },
        {
          req: "note.add",
          file: "readings.qo",
          when: T0 + 86_400,
          body: { temp: 1.5, count: 1, label: "new", ok: true },
        },
        { req: "note.add", file: "sensors.qo", when: T0 + 5, body: { temp: 21.5 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 6, body: { temp: 22.25 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 7, body: { temp: 23 } },
        {
          req: "note.update",
          file: "settings.db",
          note: "mode",
          when: T0 + 13,
          body: { mode: "boost", level: 2 },
        },
        { req: "note.delete", file: "settings.db", note: "old", when: T0 + 12 },
      ]);
    } finally {
      await m.close();
    }
    // The module appended to the old journal: a later boot reads that too.
    expect((await readdir(dir)).sort()).toEqual(["flash.json", "journal.1"]);
    const again = await bootOn(dir);
    try {
      expect(again.log.lines.filter((l) => l.level === "warn")).toEqual([]);
      expect(await again.req({ req: "file.changes" })).toMatchObject({ total: 1 });
    } finally {
      await again.close();
    }
  });

  it("is read by flash inspect, note by note", async () => {
    const dir = join(FIXTURES, "v1", "notes");
    const info = await inspectFlash(new NodeFlashFs(dir)); // read-only: the fixture stays as committed
    expect(info).toMatchObject({
      formatVersion: 1,
      generation: 1,
      capacity: 65_536,
      used: 1690,
      records: 19,
      problems: [],
      files: [
        { name: "flash.json", size: 75 },
        { name: "journal.1", size: 1615 },
      ],
      trackers: {},
    });
    expect(info.fatal).toBeUndefined();
    const notes = Object.fromEntries(
      info.notefiles.map((f) => [
        f.name,
        f.list.map((n) => [n.id, n.change, n.time, n.template ?? null, n.deleted, n.body ?? null]),
      ]),
    );
    expect(notes).toEqual({
      "log.qo": [["1", 1, T0 + 15, null, false, { text: "héllo, wörld ✓" }]],
      "readings.qo": [
        ["1", 1, T0 + 9, 1, false, { temp: 20.5, count: 3, label: "kitchen", ok: true }],
        ["2", 2, T0 + 10, 1, false, { temp: -4.25, count: -7, label: "porch" }],
      ],
      "sensors.qo": [
        ["1", 1, T0 + 5, null, false, { temp: 21.5 }],
        ["2", 2, T0 + 6, null, false, { temp: 22.25 }],
        ["3", 3, T0 + 7, null, false, { temp: 23 }],
      ],
      "settings.db": [
        ["mode", 3, T0 + 13, null, false, { mode: "boost", level: 2 }],
        ["old", 4, T0 + 12, null, true, { x: 1 }],
      ],
    });
    expect(info.config).toMatchObject({
      identity: { device: "dev:871791162143593" },
      hub: { product: "com.example.fixtures:flash", outbound: 60, inbound: 240, sn: "rig-7" },
      "env.default/label": { name: "label", text: "blue", time: T0 + 3 },
      "env.default/interval": { name: "interval", text: "300", time: T0 + 4 },
    });

    // The command itself, as a user runs it.
    const cli = await runCli(["flash", "inspect", "--notes", dir]);
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("format 1, generation 1, capacity 65536 bytes, used 1690 bytes (2.6%)");
    expect(cli.stdout).toContain(
      `1: change 1, time ${T0 + 9}, template 1 {"temp":20.5,"count":3,"label":"kitchen","ok":true}`,
    );
    expect(cli.stdout).toContain(`old: change 4, time ${T0 + 12}, updates 1, deleted {"x":1}`);
  });
});

describe("a flash directory of format v1 compacted once, with writes after the compaction", () => {
  it("boots on generation 2 with the compacted state and every later write", async () => {
    const dir = await copyOf("v1/compacted");
    expect((await readdir(dir)).sort()).toEqual(["flash.json", "journal.2"]);
    const m = await bootOn(dir);
    try {
      expect(m.log.lines.filter((l) => l.level === "warn")).toEqual([]);
      expect(m.sim.module.deviceUid).toBe("dev:817198975026567");
      expect(await m.req({ req: "hub.get" })).toMatchObject({
        device: "dev:817198975026567",
        product: "com.example.fixtures:flash",
        mode: "periodic",
        outbound: 120,
      });
      expect(await m.req({ req: "env.get", name: "label" })).toEqual({ text: "green", time: T0 + 23 });
      expect(await m.req({ req: "note.changes", file: "state.db", deleted: true })).toEqual({
        total: 2,
        notes: {
          gone: { body: { soon: true }, time: T0 + 18, deleted: true },
          counter: { body: { n: 13 }, time: T0 + 21 },
          late: { body: { added: "after compaction" }, time: T0 + 22 },
        },
      });
      expect(await m.syncedEvents()).toEqual([
        { req: "note.add", file: "sensors.qo", when: T0 + 2, body: { i: 1 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 3, body: { i: 2 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 4, body: { i: 3 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 5, body: { i: 4 } },
        { req: "note.add", file: "sensors.qo", when: T0 + 20, body: { i: 5, after: "compaction" } },
        { req: "note.delete", file: "state.db", note: "gone", when: T0 + 18 },
        { req: "note.update", file: "state.db", note: "counter", when: T0 + 21, body: { n: 13 } },
        {
          req: "note.add",
          file: "state.db",
          note: "late",
          when: T0 + 22,
          body: { added: "after compaction" },
        },
      ]);
    } finally {
      await m.close();
    }
  });

  it("is read by flash inspect as generation 2", async () => {
    const dir = join(FIXTURES, "v1", "compacted");
    const info = await inspectFlash(new NodeFlashFs(dir));
    expect(info).toMatchObject({
      formatVersion: 1,
      generation: 2,
      capacity: 65_536,
      records: 16,
      problems: [],
    });
    expect(info.notefiles.map((f) => [f.name, f.notes, f.tombstones])).toEqual([
      ["sensors.qo", 5, 0],
      ["state.db", 2, 1],
    ]);
    expect(JSON.parse(await readFile(join(dir, "flash.json"), "utf8"))).toEqual({
      capacity: 65_536,
      check: expect.stringMatching(/^[0-9a-f]{8}$/),
      format: "cardsim-flash",
      version: 1,
    });
  });
});
