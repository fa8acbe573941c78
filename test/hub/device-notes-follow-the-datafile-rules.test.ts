import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe("device notes and notefiles follow interface B's datafile rules", () => {
  let hub: TestHub;
  let D: string;
  const n = (suffix: string): string => hub.p(`/devices/${D}${suffix}`);

  beforeAll(async () => {
    hub = await TestHub.start();
    D = (await hub.device({ serialNumber: "tank-1" })).uid;
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("queues inbound notes in order with generated IDs and withdraws them on delete", async () => {
    expect((await hub.post(n("/notes/data.qi"), { body: { a: 1 } })).json).toEqual({});
    await hub.post(n("/notes/data.qi"), { payload: "AQID" });
    const file = await hub.get(n("/notes/data.qi"));
    expect(file.json.total).toBe(2);
    expect(Object.keys(file.json.notes)).toEqual(["1:1", "1:2"]);
    expect(file.json.notes["1:2"]).toEqual({ payload: "AQID", time: Math.floor(hub.clock.now() / 1000) });
    expect((await hub.delete(n("/notes/data.qi/1:1"))).status).toBe(200);
    expect(Object.keys((await hub.get(n("/notes/data.qi"))).json.notes)).toEqual(["1:2"]);
    // Hub-side changes are events of the project, as on the hosted service.
    const latest = await hub.get(n("/latest"));
    expect(latest.json.latest_events[0]).toMatchObject({
      file: "data.qi",
      req: "note.add",
      device: D,
      sn: "tank-1",
    });
  });

  it("keys database notes, refuses duplicates with {note-exists} and leaves tombstones", async () => {
    await hub.post(n("/notes/config.db/alarm"), { body: { level: 3 } });
    const dup = await hub.post(n("/notes/config.db/alarm"), { body: { level: 4 } });
    expectErrorBody(dup, 409);
    expect(dup.json.err).toContain("{note-exists}");
    await hub.put(n("/notes/config.db/alarm"), { body: { level: 5 } });
    expect((await hub.get(n("/notes/config.db/alarm"))).json.body).toEqual({ level: 5 });
    await hub.delete(n("/notes/config.db/alarm"));
    const gone = await hub.get(n("/notes/config.db/alarm"));
    expectErrorBody(gone, 404);
    expect(gone.json.err).toContain("{note-noexist}");
    expect((await hub.get(n("/notes/config.db/alarm?deleted=true"))).json).toMatchObject({ deleted: true });
    // A deleted ID may be added again; update creates a missing database note.
    expect((await hub.post(n("/notes/config.db/alarm"), { body: { level: 1 } })).status).toBe(200);
    expect((await hub.put(n("/notes/config.db/fresh"), { body: { x: 1 } })).status).toBe(200);
  });

  it("refuses the wrong notefile kinds with 400s that say why", async () => {
    const cases: [string, unknown, RegExp][] = [
      ["/notes/data.qo", { body: {} }, /outbound queue/],
      ["/notes/local.dbx/n", { body: {} }, /local-only/],
      ["/notes/config.db", { body: {} }, /note ID is required/],
      ["/notes/data.qi/n1", { body: {} }, /should not be specified/],
      ["/notes/data.txt", { body: {} }, /not recognized/],
      ["/notes/_env.dbs/x", { body: {} }, /reserved/],
      ["/notes/data.qi", {}, /needs a body/],
      ["/notes/data.qi", { payload: "not base64!" }, /base64/],
      ["/notes/data.qi", { body: [1, 2] }, /body must be a JSON object/],
    ];
    for (const [path, body, why] of cases) {
      const res = await hub.post(n(path), body);
      expectErrorBody(res, 400);
      expect(res.json.err, path).toMatch(why);
    }
    // The system queue for remote requests is writable.
    expect((await hub.post(n("/notes/_req.qis"), { body: { req: "card.version" } })).status).toBe(200);
    // Updating a queued note that does not exist is a 404, not a silent create.
    expectErrorBody(await hub.put(n("/notes/data.qi/1:99"), { body: {} }), 404);
  });

  it("tracks changes per tracker, and deletes what it returned when asked", async () => {
    await hub.post(n("/notes/tracked.db/a"), { body: { v: 1 } });
    await hub.post(n("/notes/tracked.db/b"), { body: { v: 2 } });
    const first = await hub.get(n("/notes/tracked.db/changes?tracker=t1&max=1"));
    expect(first.json).toEqual({
      changes: 1,
      total: 2,
      notes: { a: expect.objectContaining({ body: { v: 1 } }) },
    });
    const second = await hub.get(n("/notes/tracked.db/changes?tracker=t1"));
    expect(Object.keys(second.json.notes)).toEqual(["b"]);
    expect(second.json.changes).toBe(0);
    await hub.put(n("/notes/tracked.db/a"), { body: { v: 3 } });
    expect(Object.keys((await hub.get(n("/notes/tracked.db/changes?tracker=t1"))).json.notes)).toEqual(["a"]);
    const reset = await hub.get(n("/notes/tracked.db/changes?tracker=t1&start=true&delete=true"));
    expect(Object.keys(reset.json.notes).sort()).toEqual(["a", "b"]);
    expect((await hub.get(n("/notes/tracked.db"))).json.total).toBe(0);
    expectErrorBody(await hub.get(n("/notes/tracked.db/changes?tracker=_sync")), 400);
    // A viewer may read but not take notes.
    expectErrorBody(await hub.get(n("/notes/tracked.db/changes?delete=true"), { as: "viewer" }), 403);
  });

  it("lists notefiles (current and older forms) and deletes them all or nothing", async () => {
    await hub.post(n("/notefiles/empty.db"));
    expectErrorBody(await hub.post(n("/notefiles/empty.db")), 409);
    const files = await hub.get(n("/files?files=empty.db,data.qi"));
    expect(files.json.map((f: { id: string }) => f.id)).toEqual(["data.qi", "empty.db"]);
    expect(files.json[0].notes[0]).toMatchObject({ id: "1:2", pending: true });
    const legacy = await hub.get(n("/files/changes?tracker=x"));
    expect(legacy.json.info["empty.db"]).toEqual({ total: 0, changes: 0 });
    const pending = await hub.get(n("/files/changes/pending"));
    expect(pending.json.pending).toBe(true);
    const partial = await hub.request("DELETE", n("/files"), { body: { files: ["empty.db", "missing.db"] } });
    expectErrorBody(partial, 404);
    expect((await hub.get(n("/files?files=empty.db"))).json).toHaveLength(1);
    await hub.request("DELETE", n("/files"), { body: { files: ["empty.db"] } });
    expect((await hub.get(n("/files?files=empty.db"))).json).toEqual([]);
    expectErrorBody(await hub.get(n("/notes/empty.db")), 404);
  });

  it("accepts sn:<serial> wherever a DeviceUID goes", async () => {
    expect((await hub.get(hub.p("/devices/sn:tank-1/notes/data.qi"))).status).toBe(200);
    expectErrorBody(await hub.get(hub.p("/devices/sn:nobody")), 404);
    expectErrorBody(await hub.get(hub.p("/devices/not-a-device")), 400);
  });
});
