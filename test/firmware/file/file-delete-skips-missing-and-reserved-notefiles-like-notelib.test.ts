// Source: blues/note lib/req.go (file.delete skips reserved names, NotefileIDIsReservedWithExceptions)
// and lib/notebox.go DeleteNotefile (a notefile that does not exist is deleted without error).
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

async function withFiles() {
  const t = await bootTestModule();
  await t.req({ req: "note.add", file: "a.qo", body: { n: 1 } });
  await t.req({ req: "note.add", file: "b.db", note: "x", body: { n: 2 } });
  await t.req({ req: "note.add", file: "_health.qo", body: { n: 3 } });
  return t;
}

describe("file.delete (notelib lib/notebox.go DeleteNotefile, lib/req.go file.delete)", () => {
  it("treats a notefile that does not exist as deleted and deletes the others (boot-time clean-up)", async () => {
    const t = await withFiles();
    expect(await t.req({ req: "file.delete", files: ["never.qo", "a.qo", "gone.db", "b.db"] })).toEqual({});
    expect(t.module.notebox.file("a.qo")).toBeUndefined();
    expect(t.module.notebox.file("b.db")).toBeUndefined();
    // The same clean-up at the next boot finds nothing to delete and still succeeds.
    const again = await t.reboot();
    expect(await again.req({ req: "file.delete", files: ["a.qo", "b.db"] })).toEqual({});
  });

  it("skips the module's reserved notefiles and still deletes the rest", async () => {
    const t = await withFiles();
    const box = t.module.notebox;
    await box.transact(() => box.appendToQueue("_internal.qo", { body: {}, time: 0 }));
    expect(await t.req({ req: "file.delete", files: ["_internal.qo", "a.qo"] })).toEqual({});
    expect(box.file("_internal.qo")).toBeDefined();
    expect(box.file("a.qo")).toBeUndefined();
  });

  it("deletes the system notefiles hosts may use (_health.qo), as notelib's exceptions allow", async () => {
    const t = await withFiles();
    expect(await t.req({ req: "file.delete", files: ["_health.qo"] })).toEqual({});
    expect(t.module.notebox.file("_health.qo")).toBeUndefined();
  });

  it("skips names no notefile can have (commas, no known extension)", async () => {
    const t = await withFiles();
    expect(await t.req({ req: "file.delete", files: ["a,b.qo", "readme.txt", "a.qo"] })).toEqual({});
    expect(t.module.notebox.file("a.qo")).toBeUndefined();
  });

  it("still needs at least one name (notelib: no notefiles were specified)", async () => {
    const t = await withFiles();
    expect((await t.req({ req: "file.delete", files: [] })).err).toBe("no notefiles were specified");
  });
});
