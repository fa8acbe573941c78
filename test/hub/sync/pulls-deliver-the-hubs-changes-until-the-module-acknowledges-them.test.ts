import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import { deviceNote, type ScriptedModule } from "./support/ScriptedModule.js";
import { syncCases, SyncFixture } from "./support/syncFixture.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe.each(syncCases())("pulls and acks (%s, %s)", (via, backend) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { backend });
  });
  afterAll(async () => hub.close());

  async function opened(): Promise<ScriptedModule> {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    return module;
  }
  const notesPath = (module: ScriptedModule, file: string, note?: string) =>
    `/v1/projects/${hub.projectUid}/devices/${module.device}/notes/${file}${note ? `/${note}` : ""}`;

  it("lists the notefiles with changes at open, and delivers inbound queue notes until acknowledged", async () => {
    const module = await opened();
    for (const n of [1, 2, 3]) {
      expect((await hub.api("POST", notesPath(module, "data.qi"), { body: { n } })).status).toBe(200);
    }
    await hub.api("POST", notesPath(module, "config.db", "a"), { body: { a: 1 } });
    const open = await module.open();
    expect(open.files).toEqual(["config.db", "data.qi"]);

    const batch = await module.pull("data.qi");
    expect(batch).toMatchObject({ v: 1, file: "data.qi", after: 0, through: 3, more: false });
    expect(batch.notes.map((n: { body: unknown }) => n.body)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(batch.notes[0]).toMatchObject({ endpoint: "1", updates: 0, history: { "1": 0 } });

    // The ack is lost: the same batch comes again.
    expect(await module.pull("data.qi")).toEqual(batch);
    expect(await module.ack("data.qi", 0, 3)).toEqual({ v: 1 });
    // Delivered: gone from the hub's replica, nothing more to pull.
    expect(await hub.store.notefiles.listNotes(module.device, "data.qi", { includeDeleted: true })).toEqual(
      [],
    );
    expect(await module.pull("data.qi")).toMatchObject({ after: 3, through: 3, notes: [], more: false });
    // The ack sent again after its reply was lost changes nothing.
    expect(await module.ack("data.qi", 0, 3)).toEqual({ v: 1 });
    expect((await module.open()).files).toEqual(["config.db"]);
  });

  it("moves the tracker only from where it stands: another `after` starts the notefile again", async () => {
    const module = await opened();
    await hub.api("POST", notesPath(module, "data.qi"), { body: { n: 1 } });
    await hub.api("POST", notesPath(module, "data.qi"), { body: { n: 2 } });
    const batch = await module.pull("data.qi", 1);
    expect(batch).toMatchObject({ after: 0, through: 1, more: true });
    expect(await module.ack("data.qi", 1, 2)).toEqual({ v: 1, reset: true });
    expect(await hub.store.notefiles.trackerPosition(module.device, "data.qi", SYNC_TRACKER)).toBe(0);
    expect(code(await module.ack("data.qi", 0, 99))).toBe("bad-request");
    expect((await module.pullAll("data.qi")).map((n) => n.body)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("sends batches of at most 100 notes, and `max` fewer", async () => {
    const module = await opened();
    for (let i = 0; i < 130; i++)
      await hub.services.notes.add((await hub.store.devices.getDevice(module.device))!, "many.qi", null, {
        body: { i },
        payload: null,
      });
    const first = await module.pull("many.qi");
    expect(first.notes).toHaveLength(100);
    expect(first).toMatchObject({ after: 0, through: 100, more: true });
    await module.ack("many.qi", 0, 100);
    const second = await module.pull("many.qi", 20);
    expect(second).toMatchObject({ after: 100, through: 120, more: true });
    expect(second.notes).toHaveLength(20);
    await module.ack("many.qi", 100, 120);
    expect((await module.pullAll("many.qi")).map((n) => n.body)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ i: 120 + i })),
    );
  });

  it("never sends back what the module sent, and keeps tombstones until every tracker passed them", async () => {
    const module = await opened();
    await module.push("state.db", [deviceNote("mine", { change: 1 }), deviceNote("also", { change: 2 })]);
    expect((await module.open()).files).toEqual([]);
    expect(await module.pull("state.db")).toMatchObject({ after: 0, through: 2, notes: [], more: false });
    await module.ack("state.db", 0, 2);

    // The API deletes one: a tombstone goes down, then leaves once the module has it.
    expect((await hub.api("DELETE", notesPath(module, "state.db", "mine"))).status).toBe(200);
    expect((await module.open()).files).toEqual(["state.db"]);
    // An API reader of the notefile still has to see the deletion: its tracker holds the tombstone.
    const read = await hub.api(
      "GET",
      `${notesPath(module, "state.db")}/changes?tracker=reader&deleted=true&max=1`,
    );
    expect(read.status).toBe(200);
    const batch = await module.pull("state.db");
    expect(batch.notes).toEqual([
      expect.objectContaining({ id: "mine", deleted: true, updates: 1, endpoint: "1" }),
    ]);
    await module.ack("state.db", batch.after, batch.through);
    expect((await hub.store.notefiles.getNote(module.device, "state.db", "mine"))?.deleted).toBe(true);
    const rest = await hub.api("GET", `${notesPath(module, "state.db")}/changes?tracker=reader&deleted=true`);
    expect(Object.keys(rest.json.notes)).toEqual(["mine"]);
    // The reader has passed it too now; the next acknowledged pull purges it.
    await hub.api("POST", notesPath(module, "state.db", "later"), { body: {} });
    await module.pullAll("state.db");
    expect(await hub.store.notefiles.getNote(module.device, "state.db", "mine")).toBeUndefined();
  });

  it("refuses pulls of outbound queues, local databases, and secure notefiles on a plain session", async () => {
    const module = await opened();
    expect(code(await module.pull("data.qo"))).toBe("bad-request");
    expect(code(await module.pull("local.dbx"))).toBe("bad-request");
    expect(code(await module.ack("data.qo", 0, 0))).toBe("bad-request");
    await hub.api("POST", notesPath(module, "_req.qis"), { body: { req: "card.version" } });
    const open = await module.open();
    const secure = await module.pull("_req.qis");
    if (hub.secure) {
      expect(open.files).toEqual(["_req.qis"]);
      expect(secure.notes).toHaveLength(1);
    } else {
      expect(open.files).toEqual([]);
      expect(code(secure)).toBe("bad-request");
    }
    // A notefile the hub does not have is an empty batch.
    expect(await module.pull("nothing.db")).toMatchObject({ after: 0, through: 0, notes: [], more: false });
    expect(await module.ack("nothing.db", 0, 0)).toEqual({ v: 1 });
  });

  it("shows what is pending for the device through the API as before (no echo counted)", async () => {
    const module = await opened();
    await module.push("both.db", [deviceNote("d", { change: 1 })]);
    await hub.api("POST", notesPath(module, "both.db", "h"), { body: { h: 1 } });
    const files = await hub.api(
      "GET",
      `/v1/projects/${hub.projectUid}/devices/${module.device}/files?pending=true`,
    );
    expect(files.json).toEqual([
      { id: "both.db", notes: [expect.objectContaining({ id: "h", pending: true })] },
    ]);
    await module.pullAll("both.db");
    const after = await hub.api(
      "GET",
      `/v1/projects/${hub.projectUid}/devices/${module.device}/files?pending=true`,
    );
    expect(after.json).toEqual([]);
  });
});
