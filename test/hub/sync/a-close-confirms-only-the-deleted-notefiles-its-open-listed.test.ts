import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SyncFixture, type Via } from "./support/syncFixture.js";

/**
 * A notefile deleted on the hub stays as a tombstone until a session's `close` confirms the module
 * deleted it too; a close may confirm only what its own session's `open` listed in `deleted`.
 */
describe.each<Via>(["http", "in process"])("close.deleted (%s)", (via) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via);
  });
  afterAll(async () => hub.close());

  it("drops no tombstone the session was not told about (a secure one on a plain session, one deleted since)", async () => {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    const device = (await hub.store.devices.getDevice(module.device))!;
    for (const file of ["config.dbs", "config.db", "later.db"]) {
      await hub.services.notes.add(device, file, "n", { body: { a: 1 }, payload: null });
    }
    expect((await module.close()).err).toBeUndefined();
    const del = await hub.api("DELETE", `/v1/projects/${hub.projectUid}/devices/${module.device}/files`, {
      files: ["config.dbs", "config.db"],
    });
    expect(del.status).toBe(200);

    const open = await module.open();
    expect(open.err).toBeUndefined();
    // A plain session is never told of a secure notefile.
    expect(open.deleted).toEqual(hub.secure ? ["config.db", "config.dbs"] : ["config.db"]);
    await hub.api("DELETE", `/v1/projects/${hub.projectUid}/devices/${module.device}/files`, {
      files: ["later.db"],
    });
    const close = await module.request({
      type: "close",
      token: module.token,
      why: "sync complete",
      deleted: ["config.db", "config.dbs", "later.db", "never.db"],
    });
    expect(close.err).toBeUndefined();
    const standing = await hub.store.notefiles.deletedNotefiles(module.device);
    expect(standing.sort()).toEqual(hub.secure ? ["later.db"] : ["config.dbs", "later.db"]);
  });
});
