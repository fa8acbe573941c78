import { describe, expect, it } from "vitest";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

/** Puts notes into an inbound queue as the hub would (hosts cannot add to .qi). */
async function deliver(t: TestModule, file: string, bodies: object[]): Promise<void> {
  const box = t.module.notebox;
  await box.transact(() => {
    for (const body of bodies) box.appendToQueue(file, { body: body as never, time: 0 });
  });
}

describe("note.get reads queues oldest first and databases by ID", () => {
  it("returns the oldest inbound note again and again until delete:true pops it", async () => {
    const t = await bootTestModule();
    await deliver(t, "data.qi", [{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await t.req({ req: "note.get" })).toEqual({ body: { n: 1 } });
    expect(await t.req({ req: "note.get", file: "data.qi" })).toEqual({ body: { n: 1 } });
    expect(await t.req({ req: "note.get", delete: true })).toEqual({ body: { n: 1 } });
    expect(await t.req({ req: "note.get", delete: true })).toEqual({ body: { n: 2 } });
    expect(await t.req({ req: "note.get", delete: true })).toEqual({ body: { n: 3 } });
    expect(await t.req({ req: "note.get", delete: true })).toEqual({
      err: "no notes available in queue {note-noexist}",
    });
  });

  it("answers {notefile-noexist} and {note-noexist} for a queue that never received anything", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.get", file: "commands.qis" })).err).toBe(
      "{notefile-noexist} opening notefile: notefile does not exist: commands.qis {note-noexist}",
    );
  });

  it("keeps popped notes popped across a restart", async () => {
    const t = await bootTestModule();
    await deliver(t, "in.qi", [{ n: 1 }, { n: 2 }]);
    await t.req({ req: "note.get", file: "in.qi", delete: true });
    const after = await t.reboot();
    expect(await after.req({ req: "note.get", file: "in.qi" })).toEqual({ body: { n: 2 } });
  });

  it("picks a queue note by the ID note.changes shows", async () => {
    const t = await bootTestModule();
    await deliver(t, "in.qi", [{ n: 1 }, { n: 2 }]);
    const ids = Object.keys((await t.req({ req: "note.changes", file: "in.qi" })).notes as object);
    expect(await t.req({ req: "note.get", file: "in.qi", note: ids[1] })).toEqual({ body: { n: 2 } });
    expect((await t.req({ req: "note.get", file: "in.qi", note: "99" })).err).toMatch(/\{note-noexist\}/);
  });

  it("returns the payload base64-encoded and the note's time", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await t.req({ req: "note.add", file: "a.dbx", note: "n", body: { a: 1 }, payload: "3q2+7w==" });
    expect(await t.req({ req: "note.get", file: "a.dbx", note: "n" })).toEqual({
      body: { a: 1 },
      payload: "3q2+7w==",
      time: t.module.time(),
    });
  });

  it("needs a note ID for databases and answers {note-noexist} for a missing one", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "n", body: {} });
    expect((await t.req({ req: "note.get", file: "a.db" })).err).toBe("no note ID specified");
    expect((await t.req({ req: "note.get", file: "a.db", note: "x" })).err).toBe(
      "error getting note: {note-noexist} note not found: x",
    );
    expect((await t.req({ req: "note.get", file: "none.db", note: "x" })).err).toMatch(/\{note-noexist\}/);
  });

  it("shows a deleted database note only with deleted:true, flagged as deleted", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "n", body: { a: 1 } });
    await t.req({ req: "note.delete", file: "a.db", note: "n" });
    expect((await t.req({ req: "note.get", file: "a.db", note: "n" })).err).toBe(
      "note has been deleted: n {note-noexist}",
    );
    expect(await t.req({ req: "note.get", file: "a.db", note: "n", deleted: true })).toEqual({
      body: { a: 1 },
      deleted: true,
    });
  });

  it("delete:true on a database leaves a tombstone", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "n", body: { a: 1 } });
    expect(await t.req({ req: "note.get", file: "a.db", note: "n", delete: true })).toEqual({
      body: { a: 1 },
    });
    expect(await t.req({ req: "note.get", file: "a.db", note: "n", deleted: true })).toEqual({
      body: { a: 1 },
      deleted: true,
    });
    expect(t.module.notebox.file("a.db")!.total).toBe(0);
  });

  it("refuses outbound queues and answers decrypt with {not-supported}", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "out.qo", body: {} });
    expect((await t.req({ req: "note.get", file: "out.qo" })).err).toMatch(
      /^cannot get notes from outbound queue out\.qo/,
    );
    expect((await t.req({ req: "note.get", decrypt: true })).err).toMatch(/\{not-supported\}$/);
  });

  it("returns copies: changing a reply does not change the stored note", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "n", body: { a: { b: 1 } } });
    const reply = await t.req({ req: "note.get", file: "a.db", note: "n" });
    (reply.body as { a: { b: number } }).a.b = 2;
    expect(await t.req({ req: "note.get", file: "a.db", note: "n" })).toEqual({ body: { a: { b: 1 } } });
  });
});

describe("note.update and note.delete work on databases", () => {
  it("note.update replaces the whole note and creates it when missing", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.update", file: "a.db", note: "n", body: { a: 1, b: 2 } })).toEqual({});
    expect(await t.req({ req: "note.update", file: "a.db", note: "n", payload: "AQ==" })).toEqual({});
    expect(await t.req({ req: "note.get", file: "a.db", note: "n" })).toEqual({ payload: "AQ==" });
    expect(
      await t.req({ req: "note.update", file: "a.db", note: "n", body: { c: 3 }, verify: true }),
    ).toEqual({});
    expect(await t.req({ req: "note.get", file: "a.db", note: "n" })).toEqual({ body: { c: 3 } });
    expect(t.module.notebox.file("a.db")!.notes.get("n")!.updates).toBe(2);
  });

  it("note.update brings a deleted note back and can ask for a sync", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.dbs", note: "n", body: { a: 1 } });
    await t.req({ req: "note.delete", file: "a.dbs", note: "n" });
    await t.req({ req: "note.update", file: "a.dbs", note: "n", body: { a: 2 }, sync: true });
    expect(await t.req({ req: "note.get", file: "a.dbs", note: "n" })).toEqual({ body: { a: 2 } });
    expect([...t.module.notebox.syncRequests()]).toEqual(["a.dbs"]);
  });

  it("note.update needs a notefile, a note ID and content, and refuses queues", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.update", note: "n", body: {} })).err).toBe("no notefile specified");
    expect((await t.req({ req: "note.update", file: "a.db", body: {} })).err).toBe("no note ID specified");
    expect((await t.req({ req: "note.update", file: "a.db", note: "n" })).err).toMatch(/^no body or payload/);
    expect((await t.req({ req: "note.update", file: "a.qo", note: "n", body: {} })).err).toBe(
      "{notefile-queue-disallowed} operation not allowed on queue notefiles: a.qo",
    );
    expect((await t.req({ req: "note.update", file: "_x.db", note: "n", body: {} })).err).toMatch(
      /^reserved notefile name/,
    );
  });

  it("note.delete deletes from .db, .dbs and .dbx and reports missing notes", async () => {
    const t = await bootTestModule();
    for (const file of ["a.db", "a.dbs", "a.dbx"]) {
      await t.req({ req: "note.add", file, note: "n", body: {} });
      expect(await t.req({ req: "note.delete", file, note: "n", verify: true })).toEqual({});
      // Deleting the tombstone again succeeds, as in notelib; a note that never was does not.
      expect(await t.req({ req: "note.delete", file, note: "n" })).toEqual({});
      expect((await t.req({ req: "note.delete", file, note: "m" })).err).toBe(
        "error deleting note: {note-noexist} cannot delete note: note not found: m",
      );
    }
    expect((await t.req({ req: "note.delete", file: "none.db", note: "n" })).err).toMatch(/\{note-noexist\}/);
    expect((await t.req({ req: "note.delete", file: "a.qi", note: "n" })).err).toMatch(
      /^\{notefile-queue-disallowed\}/,
    );
    expect((await t.req({ req: "note.delete", file: "a.db" })).err).toBe("no note ID specified");
  });

  it("keeps tombstones and updates across a restart", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "gone", body: { a: 1 } });
    await t.req({ req: "note.add", file: "a.db", note: "kept", body: { a: 2 } });
    await t.req({ req: "note.delete", file: "a.db", note: "gone" });
    await t.req({ req: "note.update", file: "a.db", note: "kept", body: { a: 3 } });
    const after = await t.reboot();
    expect(await after.req({ req: "note.get", file: "a.db", note: "kept" })).toEqual({ body: { a: 3 } });
    expect(await after.req({ req: "note.get", file: "a.db", note: "gone", deleted: true })).toEqual({
      body: { a: 1 },
      deleted: true,
    });
    expect(after.module.notebox.file("a.db")!.total).toBe(1);
  });
});
