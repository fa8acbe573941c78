import { afterEach, beforeEach, expect, it } from "vitest";
import type { ChangesOptions, HubStore } from "../../../../hub/store/HubStore.js";
import type { NoteRecord } from "../../../../hub/store/records.js";
import { SYNC_TRACKER } from "../../../../protocol/trackers.js";
import { describeEachBackend } from "./support/backends.js";
import { putDevice, seedProject, T0 } from "./support/seed.js";

const read = (tracker: string | null, extra: Partial<ChangesOptions> = {}): ChangesOptions => ({
  tracker,
  max: 0,
  start: false,
  stop: false,
  includeDeleted: true,
  deleteReturned: false,
  tombstoneOnDelete: true,
  ...extra,
});

/** A version of a note as the device sync stores it. */
const version = (
  noteId: string,
  arrived: boolean,
  body: object = { v: noteId },
): Omit<NoteRecord, "change"> => ({
  noteId,
  body: body as never,
  payload: null,
  timeSec: T0 / 1000,
  updates: 1,
  deleted: false,
  endpoint: arrived ? "dev" : "1",
  history: null,
  conflicts: null,
  where: null,
  arrived,
});

describeEachBackend("a hub store's notefiles, changes, trackers and tombstones", (backend) => {
  let store: HubStore;
  const files = () => store.notefiles;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
    await putDevice(store, 1);
  });
  afterEach(() => backend.dispose(store));

  it("creates notefiles once, numbers changes per notefile, and names queue notes by their change", async () => {
    await files().createNotefile("dev:1", "a.db", T0);
    await expect(files().createNotefile("dev:1", "a.db", T0)).rejects.toMatchObject({
      code: "notefile-exists",
    });
    const first = await files().addNote(
      "dev:1",
      "a.db",
      { noteId: "x", body: { n: 1 }, payload: "AQ==" },
      T0,
    );
    const second = await files().addNote(
      "dev:1",
      "b.qo",
      { noteId: null, body: { n: 2 }, payload: null },
      T0 + 1000,
    );
    expect(first).toMatchObject({ noteId: "x", change: 1, deleted: false, payload: "AQ==" });
    expect(second).toMatchObject({ noteId: "1:1", change: 1 });
    await expect(
      files().addNote("dev:1", "a.db", { noteId: "x", body: {}, payload: null }, T0),
    ).rejects.toMatchObject({
      code: "note-exists",
    });
    const updated = await files().updateNote(
      "dev:1",
      "a.db",
      "x",
      { body: { n: 3 }, payload: null },
      T0 + 2000,
      false,
    );
    expect(updated.change).toBe(2);
    await expect(
      files().updateNote("dev:1", "a.db", "nope", { body: {}, payload: null }, T0, false),
    ).rejects.toMatchObject({ code: "note-noexist" });
    await expect(
      files().updateNote("dev:1", "c.db", "nope", { body: {}, payload: null }, T0, false),
    ).rejects.toMatchObject({ code: "notefile-noexist" });
    expect(
      (await files().updateNote("dev:1", "c.db", "y", { body: {}, payload: null }, T0, true)).change,
    ).toBe(1);
    const listed = await files().listNotefiles("dev:1");
    expect(listed.map((f) => [f.fileId, f.total, f.nextChange])).toEqual([
      ["a.db", 1, 3],
      ["b.qo", 1, 2],
      ["c.db", 1, 2],
    ]);
    expect((await files().getNotefile("dev:1", "a.db"))?.modified).toBe(T0 + 2000);
  });

  it("leaves tombstones that trackers read, or removes queue notes outright", async () => {
    await files().addNote("dev:1", "a.db", { noteId: "x", body: {}, payload: null }, T0);
    await files().addNote("dev:1", "a.qo", { noteId: "q", body: {}, payload: null }, T0);
    await files().deleteNote("dev:1", "a.db", "x", T0 + 1000, true);
    await files().deleteNote("dev:1", "a.qo", "q", T0 + 1000, false);
    await expect(files().deleteNote("dev:1", "a.db", "x", T0, true)).rejects.toMatchObject({
      code: "note-noexist",
    });
    expect(await files().getNote("dev:1", "a.db", "x")).toMatchObject({
      deleted: true,
      change: 2,
      body: null,
    });
    expect(await files().getNote("dev:1", "a.qo", "q")).toBeUndefined();
    expect(await files().listNotes("dev:1", "a.db", { includeDeleted: false })).toEqual([]);
    expect((await files().listNotes("dev:1", "a.db", { includeDeleted: true })).map((n) => n.noteId)).toEqual(
      ["x"],
    );
    // A tombstone is replaced by a note added again under its ID.
    expect(
      (await files().addNote("dev:1", "a.db", { noteId: "x", body: { back: true }, payload: null }, T0))
        .change,
    ).toBe(3);
  });

  it("reads changes through a tracker in batches, peeks, stops, and deletes what it returned", async () => {
    for (const id of ["a", "b", "c"])
      await files().addNote("dev:1", "f.db", { noteId: id, body: {}, payload: null }, T0);
    const one = await files().changes("dev:1", "f.db", read("t", { max: 2 }), T0);
    expect([one.notes.map((n) => n.noteId), one.changes, one.total]).toEqual([["a", "b"], 1, 3]);
    const peek = await files().changes("dev:1", "f.db", read("t", { peek: true }), T0);
    expect(peek.notes.map((n) => n.noteId)).toEqual(["c"]);
    const two = await files().changes("dev:1", "f.db", read("t", { deleteReturned: true }), T0 + 1000);
    expect([two.notes.map((n) => n.noteId), two.changes, two.total]).toEqual([["c"], 0, 2]);
    // The deletion is a change the tracker has not seen.
    const three = await files().changes("dev:1", "f.db", read("t", { includeDeleted: true }), T0);
    expect(three.notes.map((n) => [n.noteId, n.deleted])).toEqual([["c", true]]);
    expect(await files().trackerPosition("dev:1", "f.db", "t")).toBe(4);
    await files().changes("dev:1", "f.db", read("t", { stop: true }), T0);
    expect(await files().trackerPosition("dev:1", "f.db", "t")).toBe(0);
    const all = await files().changes("dev:1", "f.db", read(null, { includeDeleted: false }), T0);
    expect([all.notes.map((n) => n.noteId), all.changes]).toEqual([["a", "b"], undefined]);
    const restart = await files().changes("dev:1", "f.db", read("t", { start: true, max: 1 }), T0);
    expect(restart.notes.map((n) => n.noteId)).toEqual(["a"]);
    await expect(files().changes("dev:1", "none.db", read("t"), T0)).rejects.toMatchObject({
      code: "notefile-noexist",
    });
  });

  it("gives the device's tracker what changed on the hub, never a version it sent unchanged", async () => {
    await files().putVersion("dev:1", "f.db", version("from-device", true), T0);
    await files().putVersion("dev:1", "f.db", version("from-hub", false), T0);
    expect(await files().changesAfter("dev:1", "f.db", SYNC_TRACKER, 0, 10)).toMatchObject({
      notes: [{ noteId: "from-hub", change: 2 }],
      through: 2,
      more: false,
    });
    // Another tracker sees both.
    const other = await files().changesAfter("dev:1", "f.db", "api", 0, 1);
    expect([other.notes.map((n) => n.noteId), other.through, other.more]).toEqual([["from-device"], 1, true]);
    expect(await files().changesAfter("dev:1", "none.db", SYNC_TRACKER, 5, 10)).toEqual({
      notes: [],
      through: 5,
      more: false,
    });
    const summary = await files().summaries("dev:1", SYNC_TRACKER);
    expect(summary).toEqual([{ fileId: "f.db", total: 2, position: 0, changes: 1 }]);
    await files().setTrackerPosition("dev:1", "f.db", SYNC_TRACKER, 2);
    expect(await files().summaries("dev:1", SYNC_TRACKER)).toEqual([
      { fileId: "f.db", total: 2, position: 2, changes: 0 },
    ]);
    expect(await files().summaries("dev:1", null)).toEqual([
      { fileId: "f.db", total: 2, position: 0, changes: 2 },
    ]);
    await files().clearTracker("dev:1", SYNC_TRACKER);
    expect(await files().trackerPosition("dev:1", "f.db", SYNC_TRACKER)).toBe(0);
  });

  it("answers an opening session's deleted notefiles, changed notefiles and signals in one read, as the separate reads do", async () => {
    const separately = async (uid: string) => ({
      deleted: await files().deletedNotefiles(uid),
      changed: (await files().summaries(uid, SYNC_TRACKER)).filter((s) => s.changes > 0).map((s) => s.fileId),
      signals: (await store.devices.pendingSignals(uid)).length,
    });
    expect(await files().syncOutlook("dev:1")).toEqual({ deleted: [], changed: [], signals: 0 });
    // Only the device's own version: nothing to tell it. A hub version past its tracker is.
    await files().putVersion("dev:1", "up.qo", version("from-device", true), T0);
    await files().putVersion("dev:1", "b.db", version("x", false), T0);
    await files().putVersion("dev:1", "a.db", version("y", false), T0);
    await files().putVersion("dev:1", "a.db", version("z", false), T0);
    await files().setTrackerPosition("dev:1", "a.db", SYNC_TRACKER, 1);
    await files().putVersion("dev:1", "seen.db", version("s", false), T0);
    await files().setTrackerPosition("dev:1", "seen.db", SYNC_TRACKER, 1);
    // Another tracker's position does not count.
    await files().setTrackerPosition("dev:1", "b.db", "api", 5);
    await files().createNotefile("dev:1", "gone2.db", T0);
    await files().createNotefile("dev:1", "gone1.db", T0);
    await files().deleteNotefiles("dev:1", ["gone2.db", "gone1.db"], T0);
    await store.devices.queueSignal("dev:1", { n: 1 }, T0);
    await store.devices.queueSignal("dev:1", { n: 2 }, T0);
    await putDevice(store, 2);
    await files().putVersion("dev:2", "c.db", version("c", false), T0);
    await store.devices.queueSignal("dev:2", { n: 3 }, T0);
    const outlook = await files().syncOutlook("dev:1");
    expect(outlook).toEqual({ deleted: ["gone1.db", "gone2.db"], changed: ["a.db", "b.db"], signals: 2 });
    expect(outlook).toEqual(await separately("dev:1"));
    expect(await files().syncOutlook("dev:2")).toEqual({ deleted: [], changed: ["c.db"], signals: 1 });
    await store.devices.acknowledgeSignals("dev:1", Number.MAX_SAFE_INTEGER);
    await files().setTrackerPosition("dev:1", "a.db", SYNC_TRACKER, 2);
    await files().forgetDeletedNotefiles("dev:1", ["gone1.db"]);
    expect(await files().syncOutlook("dev:1")).toEqual({
      deleted: ["gone2.db"],
      changed: ["b.db"],
      signals: 0,
    });
    expect(await files().syncOutlook("dev:none")).toEqual({ deleted: [], changed: [], signals: 0 });
  });

  it("removes delivered queue notes and the tombstones every tracker has passed", async () => {
    for (const id of ["a", "b", "c"])
      await files().addNote("dev:1", "q.qo", { noteId: id, body: {}, payload: null }, T0);
    expect(await files().removeDelivered("dev:1", "q.qo", 2)).toBe(2);
    expect((await files().listNotes("dev:1", "q.qo", { includeDeleted: true })).map((n) => n.noteId)).toEqual(
      ["c"],
    );
    await files().addNote("dev:1", "d.db", { noteId: "x", body: {}, payload: null }, T0);
    await files().deleteNote("dev:1", "d.db", "x", T0, true);
    // The device's tracker counts as at 0 until it has one.
    await files().setTrackerPosition("dev:1", "d.db", "api", 5);
    expect(await files().purgeTombstones("dev:1", "d.db")).toBe(0);
    await files().setTrackerPosition("dev:1", "d.db", SYNC_TRACKER, 2);
    expect(await files().purgeTombstones("dev:1", "d.db")).toBe(1);
    expect(await files().getNote("dev:1", "d.db", "x")).toBeUndefined();
  });

  it("deletes notefiles all or none, remembers them until the device confirms, and a new one stays", async () => {
    await files().addNote("dev:1", "a.db", { noteId: "x", body: {}, payload: null }, T0);
    await files().addNote("dev:1", "b.db", { noteId: "y", body: {}, payload: null }, T0);
    await expect(files().deleteNotefiles("dev:1", ["a.db", "none.db"], T0)).rejects.toMatchObject({
      code: "notefile-noexist",
    });
    expect((await files().listNotefiles("dev:1")).length).toBe(2);
    await files().deleteNotefiles("dev:1", ["a.db", "b.db"], T0 + 1000);
    expect(await files().listNotefiles("dev:1")).toEqual([]);
    expect(await files().getNote("dev:1", "a.db", "x")).toBeUndefined();
    expect(await files().deletedNotefiles("dev:1")).toEqual(["a.db", "b.db"]);
    await files().createNotefile("dev:1", "a.db", T0 + 2000);
    expect(await files().deletedNotefiles("dev:1")).toEqual(["b.db"]);
    await files().forgetDeletedNotefiles("dev:1", ["a.db", "b.db"]);
    expect(await files().deletedNotefiles("dev:1")).toEqual([]);
    expect((await files().listNotefiles("dev:1")).map((f) => [f.fileId, f.total])).toEqual([["a.db", 0]]);
  });
});
