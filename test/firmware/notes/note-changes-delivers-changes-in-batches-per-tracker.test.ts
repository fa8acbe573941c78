import { describe, expect, it } from "vitest";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

async function addMany(t: TestModule, file: string, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await t.req({ req: "note.add", file, body: { i } });
}

const bodies = (reply: Record<string, unknown>) =>
  Object.values((reply.notes as Record<string, { body: { i: number } }>) ?? {}).map((n) => n.body.i);

describe("note.changes delivers changes in batches per tracker", () => {
  it("returns 25 changes at a time, counting what is pending, and moves the tracker", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 30);
    const first = await t.req({ req: "note.changes", file: "s.qo", tracker: "host" });
    expect(first.changes).toBe(30);
    expect(first.total).toBe(30);
    expect(bodies(first)).toEqual([...Array(25).keys()]);
    const second = await t.req({ req: "note.changes", file: "s.qo", tracker: "host" });
    expect(second).toMatchObject({ changes: 5, total: 30 });
    expect(bodies(second)).toEqual([25, 26, 27, 28, 29]);
    expect(await t.req({ req: "note.changes", file: "s.qo", tracker: "host" })).toEqual({ total: 30 });
    await addMany(t, "s.qo", 1, 30);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "host" }))).toEqual([30]);
  });

  it("without a tracker returns the first batch every time and no change count", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 3);
    const reply = await t.req({ req: "note.changes", file: "s.qo" });
    expect(reply).toEqual({
      total: 3,
      notes: {
        "1": { body: { i: 0 }, time: 0 },
        "2": { body: { i: 1 }, time: 0 },
        "3": { body: { i: 2 }, time: 0 },
      },
    });
    expect(await t.req({ req: "note.changes", file: "s.qo" })).toEqual(reply);
  });

  it("honours max, -1 meaning all", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 40);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", max: 2 }))).toEqual([0, 1]);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", max: 2 }))).toEqual([2, 3]);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", max: -1 }))).toHaveLength(
      36,
    );
    expect((await t.req({ req: "note.changes", file: "s.qo", tracker: "a", max: -5 })).err).toMatch(
      /^max must be/,
    );
  });

  it("start and reset rewind the tracker; stop forgets it after this batch", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 3);
    await t.req({ req: "note.changes", file: "s.qo", tracker: "a" });
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", start: true }))).toEqual([
      0, 1, 2,
    ]);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", reset: true }))).toEqual([
      0, 1, 2,
    ]);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", max: 1 }))).toEqual([]);
    await addMany(t, "s.qo", 1, 3);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a", stop: true }))).toEqual([3]);
    expect(t.module.notebox.trackerPosition("a", "s.qo")).toBeUndefined();
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", tracker: "a" }))).toEqual([0, 1, 2, 3]);
  });

  it("keeps trackers apart and keeps their positions across a restart", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 2);
    await t.req({ req: "note.changes", file: "s.qo", tracker: "a" });
    const after = await t.reboot();
    await addMany(after, "s.qo", 1, 2);
    expect(bodies(await after.req({ req: "note.changes", file: "s.qo", tracker: "a" }))).toEqual([2]);
    expect(bodies(await after.req({ req: "note.changes", file: "s.qo", tracker: "b" }))).toEqual([0, 1, 2]);
  });

  it("delete:true removes returned queue notes and turns database notes into tombstones", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 3);
    expect(bodies(await t.req({ req: "note.changes", file: "s.qo", max: 2, delete: true }))).toEqual([0, 1]);
    expect(t.module.notebox.file("s.qo")!.total).toBe(1);
    await t.req({ req: "note.add", file: "d.db", note: "x", body: { i: 9 } });
    const reply = await t.req({ req: "note.changes", file: "d.db", tracker: "a", delete: true });
    expect(reply).toEqual({ changes: 1, total: 1, notes: { x: { body: { i: 9 }, time: 0 } } });
    expect(await t.req({ req: "note.get", file: "d.db", note: "x", deleted: true })).toEqual({
      body: { i: 9 },
      deleted: true,
    });
  });

  it("shows deleted database notes only with deleted:true", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "d.db", note: "x", body: { i: 1 } });
    await t.req({ req: "note.add", file: "d.db", note: "y", body: { i: 2 } });
    await t.req({ req: "note.delete", file: "d.db", note: "x" });
    expect(await t.req({ req: "note.changes", file: "d.db", tracker: "a" })).toEqual({
      changes: 1,
      total: 1,
      notes: { y: { body: { i: 2 }, time: 0 } },
    });
    expect(await t.req({ req: "note.changes", file: "d.db", tracker: "b", deleted: true })).toEqual({
      changes: 2,
      total: 1,
      notes: { y: { body: { i: 2 }, time: 0 }, x: { body: { i: 1 }, deleted: true, time: 0 } },
    });
  });

  it("shares trackers with file.changes", async () => {
    const t = await bootTestModule();
    await addMany(t, "s.qo", 2);
    await t.req({ req: "note.add", file: "d.db", note: "x", body: {} });
    expect(await t.req({ req: "file.changes", tracker: "a" })).toEqual({
      total: 3,
      changes: 3,
      info: { "d.db": { total: 1, changes: 1 }, "s.qo": { total: 2, changes: 2 } },
    });
    await t.req({ req: "note.changes", file: "s.qo", tracker: "a" });
    expect(await t.req({ req: "file.changes", tracker: "a" })).toEqual({
      total: 1,
      changes: 1,
      info: { "d.db": { total: 1, changes: 1 } },
    });
  });

  it("needs an existing notefile and refuses reserved tracker and notefile names", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.changes" })).err).toBe("no notefile specified");
    expect((await t.req({ req: "note.changes", file: "none.qo" })).err).toBe(
      "{notefile-noexist} opening notefile: notefile does not exist: none.qo",
    );
    await t.req({ req: "note.add", file: "s.qo", body: {} });
    expect((await t.req({ req: "note.changes", file: "s.qo", tracker: "1" })).err).toBe(
      "cannot use this reserved tracker name: 1",
    );
    expect((await t.req({ req: "note.changes", file: "s.qo", tracker: "a,b" })).err).toMatch(
      /^invalid tracker name/,
    );
    expect((await t.req({ req: "note.changes", file: "_env.dbs" })).err).toMatch(/^reserved notefile name/);
  });
});

describe("tombstones", () => {
  it("in a .dbx go once every tracker in the notefile has seen them", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "l.dbx", note: "x", body: { i: 1 } });
    await t.req({ req: "note.changes", file: "l.dbx", tracker: "a" });
    await t.req({ req: "note.changes", file: "l.dbx", tracker: "b" });
    await t.req({ req: "note.delete", file: "l.dbx", note: "x" });
    expect(await t.req({ req: "note.changes", file: "l.dbx", tracker: "a", deleted: true })).toMatchObject({
      notes: { x: { deleted: true } },
    });
    expect(t.module.notebox.file("l.dbx")!.notes.has("x")).toBe(true); // b has not seen it yet
    await t.req({ req: "note.changes", file: "l.dbx", tracker: "b" });
    expect(t.module.notebox.file("l.dbx")!.notes.has("x")).toBe(false);
    expect((await t.req({ req: "note.get", file: "l.dbx", note: "x", deleted: true })).err).toMatch(
      /note-noexist/,
    );
  });

  it("in a synced database stay until the hub has seen them", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "s.db", note: "x", body: { i: 1 } });
    await t.req({ req: "note.delete", file: "s.db", note: "x" });
    await t.req({ req: "note.changes", file: "s.db", tracker: "a", deleted: true });
    await t.req({ req: "note.changes", file: "s.db", tracker: "a" });
    expect(t.module.notebox.file("s.db")!.notes.has("x")).toBe(true);
  });
});
