// Source: blues/note lib/req.go (note.get, note.delete), lib/notebox.go OpenNotefile
// ("{notefile-noexist} opening notefile: notefile does not exist") and lib/notefile.go DeleteNote
// (a note that is already a tombstone is deleted again without error). {note-noexist} stays in the
// text because public host code tests for it on these requests (e.g. a note read from a database
// that was never created); var.get keeps its {note-noexist} error unchanged.
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("note.get on a notefile that does not exist (notelib lib/notebox.go OpenNotefile)", () => {
  it("answers {notefile-noexist} for a database, after the note ID check", async () => {
    const t = await bootTestModule();
    const { err } = await t.req({ req: "note.get", file: "none.db", note: "x" });
    expect(err).toBe(
      "error getting note: {notefile-noexist} opening notefile: notefile does not exist: none.db {note-noexist}",
    );
    expect((await t.req({ req: "note.get", file: "none.db" })).err).toBe("no note ID specified");
  });

  it("answers {notefile-noexist} for a queue that was never created, {note-noexist} alone once it is empty", async () => {
    const t = await bootTestModule();
    const missing = (await t.req({ req: "note.get", file: "commands.qi", delete: true })).err;
    expect(missing).toMatch(/^\{notefile-noexist\} opening notefile: notefile does not exist: commands\.qi/);
    expect(missing).toMatch(/\{note-noexist\}/);
    const box = t.module.notebox;
    await box.transact(() => box.appendToQueue("commands.qi", { body: { go: true }, time: 0 }));
    expect(await t.req({ req: "note.get", file: "commands.qi", delete: true })).toEqual({
      body: { go: true },
    });
    const empty = (await t.req({ req: "note.get", file: "commands.qi", delete: true })).err;
    expect(empty).toBe("no notes available in queue {note-noexist}");
  });

  it("still answers {note-noexist} alone for a missing note in an existing database", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "s.db", note: "a", body: { v: 1 } });
    const { err } = await t.req({ req: "note.get", file: "s.db", note: "b" });
    expect(err).toBe("error getting note: {note-noexist} note not found: b");
  });
});

describe("note.delete (notelib lib/req.go note.delete, lib/notefile.go DeleteNote)", () => {
  it("answers {notefile-noexist} for a notefile that does not exist", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.delete", file: "none.db", note: "x" })).err).toBe(
      "error deleting note: {notefile-noexist} opening notefile: notefile does not exist: none.db {note-noexist}",
    );
  });

  it("succeeds on a note that is already a tombstone and leaves it as it is", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "s.db", note: "a", body: { v: 1 } });
    expect(await t.req({ req: "note.delete", file: "s.db", note: "a" })).toEqual({});
    const file = t.module.notebox.file("s.db")!;
    const tombstone = file.notes.get("a")!;
    expect(tombstone.deleted).toBe(true);
    expect(await t.req({ req: "note.delete", file: "s.db", note: "a" })).toEqual({});
    expect(file.notes.get("a")).toEqual(tombstone);
    expect(await t.req({ req: "note.get", file: "s.db", note: "a", deleted: true })).toEqual({
      body: { v: 1 },
      deleted: true,
    });
  });
});

describe("var.get on a fresh device keeps {note-noexist} (public host code tests for it)", () => {
  it("answers {note-noexist} when vars.db does not exist yet", async () => {
    const t = await bootTestModule();
    const { err } = await t.req({ req: "var.get", name: "led-desired" });
    expect(err).toMatch(/\{note-noexist\}/);
    expect(err).not.toMatch(/notefile-noexist/);
  });
});
