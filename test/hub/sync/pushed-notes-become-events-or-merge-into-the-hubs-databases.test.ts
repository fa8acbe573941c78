import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../../../hub/store/records.js";
import { deviceEventUid } from "../../../protocol/eventUid.js";
import { nextVersion } from "../../../protocol/merge.js";
import { DEVICE_ENDPOINT } from "../../../protocol/NoteRecord.js";
import { deviceNote, type ScriptedModule } from "./support/ScriptedModule.js";
import { SyncFixture, syncCases } from "./support/syncFixture.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe.each(syncCases())("pushes (%s, %s)", (via, backend) => {
  let hub: SyncFixture;
  let events: EventRecord[];
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { backend });
    events = [];
    hub.services.events.subscribe((e) => {
      events.push(e);
    });
  });
  afterAll(async () => hub.close());

  async function opened(): Promise<ScriptedModule> {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    return module;
  }
  const of = (module: ScriptedModule, file: string) =>
    events.filter((e) => e.deviceUid === module.device && e.file === file);

  it("turns outbound queue notes into events whose UID comes from their content, once", async () => {
    const module = await opened();
    const notes = [
      deviceNote("1", {
        body: { temp: 21 },
        change: 1,
        where: { lat: 52.5, lon: 13.4, time: 1_767_225_000 },
      }),
      deviceNote("2", { body: { temp: 22 }, payload: "AQID", change: 2, when: 1_767_225_700 }),
      deviceNote("3", { body: { temp: 23 }, change: 3, updates: 1 }),
    ];
    const reply = await module.push("sensors.qo", notes, { after: 0, through: 3 });
    expect(reply).toEqual({ v: 1, merged: 3 });
    const stored = of(module, "sensors.qo");
    expect(stored.map((e) => e.uid)).toEqual(
      notes.map((n) => deviceEventUid(module.device, module.tracker, "sensors.qo", n)),
    );
    expect(stored.map((e) => e.data.req)).toEqual(["note.add", "note.add", "note.update"]);
    expect(stored[0]!.data).toMatchObject({
      app: hub.projectUid,
      product: hub.productUid,
      device: module.device,
      best_id: module.device,
      file: "sensors.qo",
      body: { temp: 21 },
      updates: 0,
      when: 1_767_225_600,
      where_lat: 52.5,
      where_lon: 13.4,
      where_when: 1_767_225_000,
      transport: "cell:lte",
      tls: hub.secure,
    });
    expect(stored[0]!.data.note).toBeUndefined();
    expect(stored[0]!.sessionUid).toBe(stored[0]!.data.session);
    expect(stored[1]!.data).toMatchObject({ payload: "AQID", when: 1_767_225_700 });
    expect(stored[1]!.whenSec).toBe(1_767_225_700);

    // The reply was lost: the module sends the batch again, in a new session too. No new event.
    expect(await module.push("sensors.qo", notes, { after: 0, through: 3 })).toEqual({ v: 1, merged: 0 });
    expect((await module.open()).err).toBeUndefined();
    expect(await module.push("sensors.qo", notes.slice(1), { after: 1, through: 3 })).toEqual({
      v: 1,
      merged: 0,
    });
    expect(of(module, "sensors.qo")).toHaveLength(3);
    // The hub keeps no replica of outbound queues.
    expect(await hub.store.notefiles.getNotefile(module.device, "sensors.qo")).toBeUndefined();
  });

  it("merges database notes: an event per change, none for a version it has seen, conflicts kept", async () => {
    const module = await opened();
    const first = deviceNote("cfg", { body: { level: 1 }, change: 1 });
    expect(await module.push("config.db", [first])).toEqual({ v: 1, merged: 1 });
    expect(of(module, "config.db").map((e) => [e.data.req, e.data.note])).toEqual([["note.add", "cfg"]]);
    const stored = (await hub.store.notefiles.getNote(module.device, "config.db", "cfg"))!;
    expect(stored).toMatchObject({
      body: { level: 1 },
      updates: 0,
      endpoint: DEVICE_ENDPOINT,
      arrived: true,
    });

    // The same version again (a lost reply): nothing changes, no event.
    expect(await module.push("config.db", [first])).toEqual({ v: 1, merged: 0 });
    expect(of(module, "config.db")).toHaveLength(1);

    // The API changes it on the hub while the module changes it too: a conflict.
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}/notes/config.db/cfg`;
    expect((await hub.api("PUT", path, { body: { level: 2 } })).status).toBe(200);
    const hubVersion = (await hub.store.notefiles.getNote(module.device, "config.db", "cfg"))!;
    expect(hubVersion).toMatchObject({
      updates: 1,
      endpoint: "1",
      history: { "": 0, "1": 1 },
      arrived: false,
    });
    const mine = nextVersion(first, DEVICE_ENDPOINT, {
      id: "cfg",
      body: { level: 3 },
      when: hubVersion.timeSec + 10,
      change: 2,
    });
    expect(await module.push("config.db", [mine])).toEqual({ v: 1, merged: 1 });
    const merged = (await hub.store.notefiles.getNote(module.device, "config.db", "cfg"))!;
    // Same update count, the newer change wins; the hub's version is kept as a conflict.
    expect(merged.body).toEqual({ level: 3 });
    expect(merged.conflicts).toHaveLength(1);
    expect(merged.conflicts![0]).toMatchObject({ body: { level: 2 }, endpoint: "1", updates: 1 });
    expect(merged.history).toEqual({ "": 1, "1": 1 });
    // A merged version is not the device's own: it goes back to the module with its conflicts.
    expect(merged.arrived).toBe(false);
    const pulled = await module.pull("config.db");
    expect(pulled.notes).toHaveLength(1);
    expect(pulled.notes[0]).toMatchObject({ id: "cfg", body: { level: 3 }, conflicts: [{ endpoint: "1" }] });
    const deviceEvents = of(module, "config.db").filter((e) => e.data.device === module.device);
    expect(deviceEvents.map((e) => e.data.req)).toEqual(["note.add", "note.update"]);
  });

  it("stores a deleted database note as a tombstone and records note.delete", async () => {
    const module = await opened();
    const note = deviceNote("gone", { body: { x: 1 }, change: 1 });
    await module.push("things.db", [note]);
    const deleted = nextVersion(note, DEVICE_ENDPOINT, {
      id: "gone",
      deleted: true,
      when: note.when + 5,
      change: 2,
    });
    expect(await module.push("things.db", [deleted])).toEqual({ v: 1, merged: 1 });
    const stored = (await hub.store.notefiles.getNote(module.device, "things.db", "gone"))!;
    expect(stored).toMatchObject({ deleted: true, body: null, arrived: true });
    expect(of(module, "things.db").map((e) => e.data.req)).toEqual(["note.add", "note.delete"]);
    expect(of(module, "things.db")[1]!.data.body).toBeUndefined();
  });

  it("refuses inbound queues, local databases, and secure notefiles on a plain session", async () => {
    const module = await opened();
    expect(code(await module.push("data.qi", [deviceNote("1")]))).toBe("bad-request");
    expect(code(await module.push("_req.qis", [deviceNote("1")]))).toBe("bad-request");
    expect(code(await module.push("local.dbx", [deviceNote("1")]))).toBe("bad-request");
    expect(code(await module.push("bad", [deviceNote("1")]))).toBe("bad-request");
    const secure = await module.push("secret.qos", [deviceNote("1")]);
    const secureDb = await module.push("secret.dbs", [deviceNote("k")]);
    if (hub.secure) {
      expect(secure).toEqual({ v: 1, merged: 1 });
      expect(secureDb).toEqual({ v: 1, merged: 1 });
    } else {
      expect(code(secure)).toBe("bad-request");
      expect(code(secureDb)).toBe("bad-request");
      expect(of(module, "secret.qos")).toHaveLength(0);
    }
  });

  it("puts _health.qo and _health_host.qo notes in the device's health log too, once", async () => {
    const module = await opened();
    const notes = [deviceNote("1", { body: { text: "flash recovered: 1 record" }, change: 1 })];
    await module.push("_health.qo", notes);
    await module.push("_health.qo", notes);
    await module.push("_health_host.qo", [deviceNote("1", { body: { text: "host up", alert: true } })]);
    const log = await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}/health-log`);
    expect(log.status).toBe(200);
    expect(
      log.json.health_log.map((e: { text: string; alert: boolean }) => [e.text, e.alert]).sort(),
    ).toEqual([
      ["flash recovered: 1 record", false],
      ["host up", true],
    ]);
    expect(of(module, "_health.qo")).toHaveLength(1);
  });
});
