import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeviceRecord } from "../../hub/store/records.js";
import { ServiceError } from "../../hub/ServiceError.js";
import { StoreError } from "../../hub/store/StoreError.js";
import { TestHub } from "./support/hubFixture.js";

const READ = {
  tracker: null,
  max: 0,
  start: false,
  stop: false,
  includeDeleted: false,
  take: false,
  peek: false,
};

/**
 * The note service is what the API's note routes call: the same changes made over HTTP and in
 * process leave the same notes and the same events.
 */
describe("hub-side note changes in process", () => {
  let hub: TestHub;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await TestHub.start();
    device = await hub.device({ serialNumber: "unit-7" });
  });

  afterEach(async () => {
    await hub.close();
  });

  const notes = () => hub.services.notes;
  const events = async () =>
    (await hub.get(hub.p(`/devices/${device.uid}/latest`))).json.latest_events as Record<string, unknown>[];

  it("add, update and delete a database note, each recorded as the API records it", async () => {
    const seen = [] as { file: string; data: Record<string, unknown> }[];
    hub.services.events.subscribe((e) => void seen.push({ file: e.file, data: e.data }));
    await notes().add(device, "config.db", "a", { body: { level: 1 }, payload: null });
    await hub.clock.advance(1000);
    await notes().update(device, "config.db", "a", { body: { level: 2 }, payload: "AQID" });
    await hub.clock.advance(1000);
    await notes().delete(device, "config.db", "a");
    const common = {
      app: hub.projectUid,
      product: hub.productUid,
      best_id: "unit-7",
      sn: "unit-7",
      note: "a",
    };
    expect(seen).toEqual([
      { file: "config.db", data: { req: "note.add", ...common, updates: 0, body: { level: 1 } } },
      {
        file: "config.db",
        data: { req: "note.update", ...common, updates: 1, body: { level: 2 }, payload: "AQID" },
      },
      { file: "config.db", data: { req: "note.delete", ...common, updates: 2 } },
    ]);
    const tombstone = await notes().get(device, "config.db", "a", { includeDeleted: true, take: false });
    expect(tombstone).toMatchObject({ deleted: true, updates: 2 });
    expect((await events()).map((e) => e.req)).toEqual(["note.delete"]);
  });

  it("adds to an inbound queue without an ID; withdrawing a queued note records nothing", async () => {
    const seen: string[] = [];
    hub.services.events.subscribe((e) => void seen.push(String(e.data.req)));
    const note = await notes().add(device, "commands.qi", null, { body: { go: true }, payload: null });
    expect(note.noteId).toBe("1:1");
    await notes().delete(device, "commands.qi", note.noteId);
    expect(seen).toEqual(["note.add"]);
    expect((await notes().read(device, "commands.qi", READ)).total).toBe(0);
  });

  it("takes what a read returns, recording a note.delete per database note taken", async () => {
    await notes().add(device, "config.db", "a", { body: { n: 1 }, payload: null });
    await notes().add(device, "config.db", "b", { body: { n: 2 }, payload: null });
    const seen: string[] = [];
    hub.services.events.subscribe((e) => void seen.push(`${String(e.data.req)} ${String(e.data.note)}`));
    const peeked = await notes().read(device, "config.db", { ...READ, take: true, peek: true });
    expect(peeked.notes).toHaveLength(2);
    expect(seen).toEqual([]);
    const taken = await notes().read(device, "config.db", { ...READ, take: true });
    expect(taken.notes.map((n) => n.noteId)).toEqual(["a", "b"]);
    expect(seen).toEqual(["note.delete a", "note.delete b"]);
    expect((await notes().read(device, "config.db", READ)).total).toBe(0);
  });

  it("makes the same notes and events as the same changes over HTTP", async () => {
    const inProcess = device;
    const overHttp = await hub.device({ serialNumber: "unit-7" });
    const D = (d: DeviceRecord) => hub.p(`/devices/${d.uid}`);
    await notes().add(inProcess, "config.db", "a", { body: { n: 1 }, payload: null });
    expect((await hub.post(`${D(overHttp)}/notes/config.db/a`, { body: { n: 1 } })).status).toBe(200);
    await notes().add(inProcess, "commands.qi", null, { body: { go: 1 }, payload: null });
    expect((await hub.post(`${D(overHttp)}/notes/commands.qi`, { body: { go: 1 } })).status).toBe(200);
    await hub.clock.advance(1000);
    await notes().update(inProcess, "config.db", "a", { body: { n: 2 }, payload: null });
    expect((await hub.put(`${D(overHttp)}/notes/config.db/a`, { body: { n: 2 } })).status).toBe(200);
    const latest = async (d: DeviceRecord) =>
      ((await hub.get(`${D(d)}/latest`)).json.latest_events as Record<string, unknown>[]).map(
        ({ event: _uid, device: _device, ...rest }) => rest,
      );
    expect(await latest(inProcess)).toEqual(await latest(overHttp));
    expect((await latest(inProcess)).map((e) => e.req)).toEqual(["note.update", "note.add"]);
    for (const path of ["/notes/config.db/a", "/notes/commands.qi", "/files"]) {
      expect((await hub.get(`${D(inProcess)}${path}`)).json).toEqual(
        (await hub.get(`${D(overHttp)}${path}`)).json,
      );
    }
  });

  it("rolls back the note when its event cannot be stored", async () => {
    const seen: string[] = [];
    hub.services.events.subscribe((e) => void seen.push(e.uid));
    const original = hub.store.telemetry.addEvent;
    hub.store.telemetry.addEvent = async () => {
      throw new Error("disk full");
    };
    try {
      await expect(notes().add(device, "config.db", "a", { body: {}, payload: null })).rejects.toThrow(
        "disk full",
      );
    } finally {
      hub.store.telemetry.addEvent = original;
    }
    expect(await hub.store.notefiles.getNotefile(device.uid, "config.db")).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it("refuses what the notefile's kind forbids and passes the store's refusals on", async () => {
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e: unknown) => (e instanceof ServiceError || e instanceof StoreError ? e.code : String(e)),
      );
    expect(await code(notes().add(device, "config.db", null, { body: {}, payload: null }))).toBe("invalid");
    expect(await code(notes().add(device, "commands.qi", "x", { body: {}, payload: null }))).toBe("invalid");
    expect(await code(notes().add(device, "data.qo", null, { body: {}, payload: null }))).toBe("invalid");
    expect(await code(notes().add(device, "local.dbx", "x", { body: {}, payload: null }))).toBe("invalid");
    expect(await code(notes().delete(device, "config.db", "x"))).toBe("notefile-noexist");
    await notes().createNotefile(device, "config.db");
    expect(await code(notes().createNotefile(device, "config.db"))).toBe("notefile-exists");
    expect(await code(notes().createNotefile(device, "config.db", { ifMissing: true }))).toBe("ok");
    expect(await code(notes().get(device, "config.db", "x", { includeDeleted: false, take: false }))).toBe(
      "note-noexist",
    );
    await notes().add(device, "config.db", "x", { body: {}, payload: null });
    expect(await code(notes().add(device, "config.db", "x", { body: {}, payload: null }))).toBe(
      "note-exists",
    );
    expect(await code(notes().deleteNotefiles(device, ["config.db", "missing.db"]))).toBe("notefile-noexist");
    expect(await notes().get(device, "config.db", "x", { includeDeleted: false, take: false })).toBeDefined();
  });
});
