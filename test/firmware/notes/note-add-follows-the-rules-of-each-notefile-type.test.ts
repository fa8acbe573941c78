import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const body = { temp: 21.5 };

describe("note.add follows the rules of each notefile type", () => {
  it("adds to data.qo by default and replies with the notefile's total", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.add", body })).toEqual({ total: 1 });
    expect(await t.req({ req: "note.add", body, file: "" })).toEqual({ total: 2 });
    expect((await t.req({ req: "file.changes" })).info).toEqual({ "data.qo": { total: 2 } });
  });

  it.each(["a.qo", "a.qos"])("queues notes in %s without host-visible IDs", async (file) => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.add", file, body })).toEqual({ total: 1 });
    const err = (await t.req({ req: "note.add", file, note: "x", body })).err;
    expect(err).toBe("note ID should not be specified when using a queue notefile");
  });

  it.each(["a.db", "a.dbs", "a.dbx"])("keys notes of %s by ID and refuses a duplicate", async (file) => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.add", file, note: "n1", body })).toEqual({ total: 1 });
    expect(await t.req({ req: "note.add", file, note: "n1", body })).toEqual({
      err: "{note-exists} note already exists: n1",
    });
    expect((await t.req({ req: "note.add", file, body })).err).toBe(
      "note ID is required when using a database notefile",
    );
    expect(await t.req({ req: "note.get", file, note: "n1" })).toEqual({ body });
  });

  it('generates a database note ID for note:"?" and returns it', async () => {
    const t = await bootTestModule();
    const first = await t.req({ req: "note.add", file: "a.db", note: "?", body });
    const second = await t.req({ req: "note.add", file: "a.db", note: "?", body: { temp: 1 } });
    expect(first.note).toMatch(/^\d+$/);
    expect(second.note).toMatch(/^\d+$/);
    expect(second.note).not.toBe(first.note);
    expect(second.total).toBe(2);
    expect(await t.req({ req: "note.get", file: "a.db", note: first.note })).toEqual({ body });
  });

  it("re-adding a deleted database note brings it back", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.db", note: "n", body });
    await t.req({ req: "note.delete", file: "a.db", note: "n" });
    expect(await t.req({ req: "note.add", file: "a.db", note: "n", body: { temp: 2 } })).toEqual({
      total: 1,
    });
    expect(await t.req({ req: "note.get", file: "a.db", note: "n" })).toEqual({ body: { temp: 2 } });
  });

  it.each(["a.qi", "a.qis"])("refuses to add to inbound queue %s", async (file) => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.add", file, body })).err).toMatch(/^cannot add notes to inbound queue/);
    expect(t.module.notebox.file(file)).toBeUndefined();
  });

  it("needs a body or a payload; an empty body is a body", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.add" })).err).toMatch(/^no body or payload specified/);
    expect((await t.req({ req: "note.add", payload: "" })).err).toMatch(/^no body or payload specified/);
    expect(await t.req({ req: "note.add", body: {} })).toEqual({ total: 1 });
    expect(await t.req({ req: "note.add", payload: "AQID" })).toEqual({ total: 2 });
  });

  it("stamps notes with the module's time, or none while the time is unknown", async () => {
    const unknown = await bootTestModule();
    await unknown.req({ req: "note.add", file: "a.db", note: "n", body });
    expect(await unknown.req({ req: "note.get", file: "a.db", note: "n" })).toEqual({ body });
    const known = await bootTestModule({ timeKnown: true });
    await known.clock.advance(5000);
    await known.req({ req: "note.add", file: "a.db", note: "n", body });
    const now = known.module.time()!;
    expect(now).toBeGreaterThan(1_700_000_000);
    expect((await known.req({ req: "note.get", file: "a.db", note: "n" })).time).toBe(now);
  });

  describe("notefile names", () => {
    it("refuses reserved names but allows the system notefiles hosts use", async () => {
      const t = await bootTestModule();
      expect((await t.req({ req: "note.add", file: "_secret.qo", body })).err).toBe(
        "reserved notefile name: _secret.qo {notefile-bad-name}",
      );
      for (const file of ["_track.qo", "_log.qo", "_health.qo", "_health_host.qo", "_rsp.qos"]) {
        expect(await t.req({ req: "note.add", file, body })).toEqual({ total: 1 });
      }
    });

    it("refuses commas, control characters and unknown extensions", async () => {
      const t = await bootTestModule();
      expect((await t.req({ req: "note.add", file: "a,b.qo", body })).err).toMatch(/\{notefile-bad-name\}$/);
      expect((await t.req({ req: "note.add", file: "a\u001fb.qo", body })).err).toMatch(
        /^invalid notefile name: a\?b\.qo/,
      );
      expect((await t.req({ req: "note.add", file: "data.txt", body })).err).toMatch(
        /^notefile type not recognized: data\.txt .*\{notefile-bad-name\}$/,
      );
      expect((await t.req({ req: "note.add", file: "qo", body })).err).toMatch(/not recognized/);
      expect((await t.req({ req: "note.add", file: "a.db", note: "x,y", body })).err).toMatch(
        /^invalid note ID: x,y/,
      );
      expect(t.store.commits).toBe(1); // only the identity record written at first boot
    });
  });

  it("rejects wrongly typed arguments with the module's {io} error", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.add", body: "x" })).err).toBe(
      "cannot interpret JSON: string being placed into a non-string field {io}",
    );
    expect((await t.req({ req: "note.add", body, sync: 1 })).err).toMatch(/\{io\}$/);
  });

  describe("max", () => {
    it("rejects notes beyond max with {note-max}", async () => {
      const t = await bootTestModule();
      expect(await t.req({ req: "note.add", file: "m.qo", body, max: 2 })).toEqual({ total: 1 });
      expect(await t.req({ req: "note.add", file: "m.qo", body, max: 2 })).toEqual({ total: 2 });
      const over = await t.req({ req: "note.add", file: "m.qo", body, max: 2 });
      expect(over.err).toBe("cannot add note: m.qo already holds 2 notes (max) {note-max}");
      expect(await t.req({ req: "note.add", file: "m.qo", body, max: 3 })).toEqual({ total: 3 });
      expect(await t.req({ req: "note.add", file: "m.qo", body, max: -1 })).toEqual({ total: 4 });
      expect(await t.req({ req: "note.add", file: "m.qo", body })).toEqual({ total: 5 });
      expect((await t.req({ req: "note.add", file: "m.qo", body, max: -2 })).err).toMatch(/^max must be/);
    });

    it("with sync, asks for a sync only once the notefile holds max notes", async () => {
      const t = await bootTestModule();
      await t.req({ req: "note.add", file: "m.qo", body, max: 2, sync: true });
      expect([...t.module.notebox.syncRequests()]).toEqual([]);
      await t.req({ req: "note.add", file: "m.qo", body, max: 2, sync: true });
      expect(t.module.notebox.takeSyncRequests()).toEqual(["m.qo"]);
      expect([...t.module.notebox.syncRequests()]).toEqual([]);
    });
  });

  it("sync:true records a sync request for the notefile (RAM only)", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "a.qo", body, sync: true });
    await t.req({ req: "note.add", file: "b.db", note: "n", body, sync: true });
    await t.req({ req: "note.add", file: "c.qo", body });
    expect([...t.module.notebox.syncRequests()]).toEqual(["a.qo", "b.db"]);
    const after = await t.reboot();
    expect([...after.module.notebox.syncRequests()]).toEqual([]);
  });

  it("accepts verify, limit and full and stores the note", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.add", body, verify: true, limit: true, full: true })).toEqual({
      total: 1,
    });
    expect(t.log.lines.filter((l) => l.message === "request fields ignored")).toEqual([]);
  });

  it("keeps live notes in RAM only: they are gone after a restart", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "l.qo", body: { n: 1 } });
    expect(await t.req({ req: "note.add", file: "l.qo", body: { n: 2 }, live: true })).toEqual({ total: 2 });
    expect(Object.keys((await t.req({ req: "note.changes", file: "l.qo" })).notes as object)).toHaveLength(2);
    const after = await t.reboot();
    expect(await after.req({ req: "note.changes", file: "l.qo" })).toEqual({
      total: 1,
      notes: { "1": { body: { n: 1 }, time: 0 } },
    });
    expect((await after.req({ req: "note.add", file: "l.db", note: "n", body, live: true })).err).toMatch(
      /\{incompatible\}$/,
    );
  });

  it("never reuses a live note's change number, so trackers miss nothing after a restart", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "l.qo", body: { n: 1 } });
    await t.req({ req: "note.add", file: "l.qo", body: { n: 2 }, live: true });
    await t.req({ req: "note.changes", file: "l.qo", tracker: "host" });
    const after = await t.reboot();
    await after.req({ req: "note.add", file: "l.qo", body: { n: 3 } });
    expect((await after.req({ req: "note.changes", file: "l.qo", tracker: "host" })).notes).toEqual({
      "3": { body: { n: 3 }, time: 0 },
    });
  });

  it("answers binary:true and key with a clear {not-supported} error", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "note.add", binary: true, live: true })).err).toMatch(
      /^note\.add: sending the binary buffer .*\{not-supported\}$/,
    );
    expect((await t.req({ req: "note.add", body, key: "pubkey" })).err).toMatch(
      /^note\.add: end-to-end encryption .*\{not-supported\}$/,
    );
  });

  it("requires file on the LoRa variant", async () => {
    const t = await bootTestModule({ variant: "lora" });
    expect((await t.req({ req: "note.add", body })).err).toBe(
      "no notefile specified: file is required on lora",
    );
    expect(await t.req({ req: "note.add", file: "a.qo", body })).toEqual({ total: 1 });
    const cell = await bootTestModule({ variant: "cell" });
    expect(await cell.req({ req: "note.add", body })).toEqual({ total: 1 });
  });

  it("changes nothing when flash is full", async () => {
    const t = await bootTestModule({ capacity: 600 });
    const big = { text: "x".repeat(200) };
    let err: unknown;
    for (let i = 0; i < 10 && !err; i++) err = (await t.req({ req: "note.add", body: big, sync: true })).err;
    expect(err).toMatch(/\{file-storage-full\}/);
    const total = t.module.notebox.file("data.qo")!.total;
    const after = await t.reboot();
    expect(after.module.notebox.file("data.qo")!.total).toBe(total);
  });
});
