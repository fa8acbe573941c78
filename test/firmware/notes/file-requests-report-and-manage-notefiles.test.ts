import { describe, expect, it } from "vitest";
import { SYNC_TRACKER as HUB_TRACKER } from "../../../protocol/trackers.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

async function setup(): Promise<TestModule> {
  const t = await bootTestModule();
  await t.req({ req: "note.add", file: "sensors.qo", body: { a: 1 } });
  await t.req({ req: "note.add", file: "sensors.qo", body: { a: 2 } });
  await t.req({ req: "note.add", file: "config.db", note: "x", body: { b: 1 } });
  await t.req({ req: "note.add", file: "local.dbx", note: "y", body: { c: 1 } });
  await t.req({ req: "note.add", file: "_health.qo", body: { d: 1 } });
  const box = t.module.notebox;
  await box.transact(() => {
    box.appendToQueue("commands.qi", { body: { e: 1 }, time: 0 });
    box.appendToQueue("_internal.qo", { body: { f: 1 }, time: 0 });
  });
  return t;
}

describe("file.changes", () => {
  it("without arguments lists every notefile the host sees with its total", async () => {
    const t = await setup();
    expect(await t.req({ req: "file.changes" })).toEqual({
      total: 5,
      info: {
        "commands.qi": { total: 1 },
        "config.db": { total: 1 },
        "local.dbx": { total: 1 },
        "sensors.qo": { total: 2 },
      },
    });
  });

  it("limits the list to files, skipping names that do not exist", async () => {
    const t = await setup();
    expect(await t.req({ req: "file.changes", files: ["sensors.qo", "missing.qo", "config.db"] })).toEqual({
      total: 3,
      info: { "config.db": { total: 1 }, "sensors.qo": { total: 2 } },
    });
    expect((await t.req({ req: "file.changes", files: "sensors.qo" })).err).toMatch(/\{io\}$/);
    expect((await t.req({ req: "file.changes", files: [1] })).err).toMatch(/\{io\}$/);
  });

  it("with a tracker reports unseen changes per notefile without moving the tracker", async () => {
    const t = await setup();
    const all = await t.req({ req: "file.changes", tracker: "app" });
    expect(all).toEqual({
      total: 6,
      changes: 6,
      info: {
        "_health.qo": { total: 1, changes: 1 },
        "commands.qi": { total: 1, changes: 1 },
        "config.db": { total: 1, changes: 1 },
        "local.dbx": { total: 1, changes: 1 },
        "sensors.qo": { total: 2, changes: 2 },
      },
    });
    expect(await t.req({ req: "file.changes", tracker: "app" })).toEqual(all);
    await t.req({ req: "note.changes", file: "config.db", tracker: "app" });
    await t.req({ req: "note.update", file: "config.db", note: "x", body: { b: 2 } });
    await t.req({ req: "note.changes", file: "sensors.qo", tracker: "app" });
    expect(await t.req({ req: "file.changes", tracker: "app", files: ["config.db", "sensors.qo"] })).toEqual({
      total: 1,
      changes: 1,
      info: { "config.db": { total: 1, changes: 1 } },
    });
    expect((await t.req({ req: "file.changes", tracker: HUB_TRACKER })).err).toMatch(/reserved tracker/);
  });
});

describe("file.changes.pending", () => {
  it("lists what waits to go up to the hub: outbound queues and synced databases", async () => {
    const t = await setup();
    await t.req({ req: "note.delete", file: "config.db", note: "x" });
    expect(await t.req({ req: "file.changes.pending" })).toEqual({
      total: 3,
      changes: 4,
      pending: true,
      info: {
        "_health.qo": { total: 1, changes: 1 },
        "config.db": { changes: 1 },
        "sensors.qo": { total: 2, changes: 2 },
      },
    });
  });

  it("answers {} when the hub has everything", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "file.changes.pending" })).toEqual({});
    await t.req({ req: "note.add", file: "local.dbx", note: "y", body: {} });
    expect(await t.req({ req: "file.changes.pending" })).toEqual({});
    await t.req({ req: "note.add", file: "config.db", note: "x", body: {} });
    // The sync engine moves the hub tracker as the hub acknowledges changes.
    const box = t.module.notebox;
    await box.transact(() =>
      box.setTrackerPosition(HUB_TRACKER, "config.db", box.file("config.db")!.meta.ctr),
    );
    expect(await t.req({ req: "file.changes.pending" })).toEqual({});
  });
});

describe("file.stats", () => {
  it("counts notes and pending changes of all notefiles or one", async () => {
    const t = await setup();
    // Five pending changes are fewer than the batch that makes a sync recommended.
    expect(await t.req({ req: "file.stats" })).toEqual({ total: 7, changes: 5 });
    expect(await t.req({ req: "file.stats", file: "sensors.qo" })).toEqual({ total: 2, changes: 2 });
    expect(await t.req({ req: "file.stats", file: "local.dbx" })).toEqual({ total: 1 });
    expect(await t.req({ req: "file.stats", file: "commands.qi" })).toEqual({ total: 1 });
    expect((await t.req({ req: "file.stats", file: "none.qo" })).err).toMatch(/^\{notefile-noexist\}/);
    expect(await (await bootTestModule()).req({ req: "file.stats" })).toEqual({});
  });
});

describe("file.delete", () => {
  it("deletes notefiles with their notes, templates and tracker positions", async () => {
    const t = await setup();
    await t.req({ req: "note.changes", file: "sensors.qo", tracker: "app" });
    expect(await t.req({ req: "file.delete", files: ["sensors.qo", "config.db"] })).toEqual({});
    expect(t.module.notebox.file("sensors.qo")).toBeUndefined();
    expect(t.module.notebox.trackerPosition("app", "sensors.qo")).toBeUndefined();
    const after = await t.reboot();
    expect(after.module.notebox.file("config.db")).toBeUndefined();
    expect(Object.keys((await after.req({ req: "file.changes" })).info as object)).toEqual([
      "commands.qi",
      "local.dbx",
    ]);
  });

  it("skips missing and reserved names and deletes the others", async () => {
    const t = await setup();
    expect(await t.req({ req: "file.delete", files: ["sensors.qo", "none.qo"] })).toEqual({});
    expect(t.module.notebox.file("sensors.qo")).toBeUndefined();
    expect(await t.req({ req: "file.delete", files: ["_internal.qo"] })).toEqual({});
    expect((await t.req({ req: "file.delete", files: [] })).err).toBe("no notefiles were specified");
    expect((await t.req({ req: "file.delete" })).err).toBe("no notefiles were specified");
    expect(await t.req({ req: "file.delete", files: ["_health.qo"] })).toEqual({});
  });
});

describe("file.clear", () => {
  it("empties an outbound queue and keeps the notefile", async () => {
    const t = await setup();
    expect(await t.req({ req: "file.clear", file: "sensors.qo" })).toEqual({});
    expect(await t.req({ req: "note.changes", file: "sensors.qo" })).toEqual({});
    expect(await t.req({ req: "note.add", file: "sensors.qo", body: { a: 3 } })).toEqual({ total: 1 });
    const after = await t.reboot();
    expect((await after.req({ req: "note.changes", file: "sensors.qo" })).notes).toEqual({
      "3": { body: { a: 3 }, time: 0 },
    });
  });

  it("clears only outbound queues that exist", async () => {
    const t = await setup();
    for (const file of ["config.db", "commands.qi", "local.dbx"]) {
      expect((await t.req({ req: "file.clear", file })).err).toMatch(/^file\.clear empties outbound queues/);
    }
    expect((await t.req({ req: "file.clear", file: "none.qos" })).err).toMatch(/^\{notefile-noexist\}/);
    expect((await t.req({ req: "file.clear" })).err).toBe("no notefile specified");
  });
});
