import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrations } from "../../../hub/store/sqlite/migrations.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";

describe("migration 3", () => {
  it("turns 'next to read' tracker positions into 'seen up to' and renames _sync to the sync tracker", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-migrate-"));
    const path = join(dir, "hub.db");
    try {
      // A database as the hub before the device sync left it (schema version 2).
      const db = new Database(path);
      db.exec(migrations[0]!);
      db.exec(migrations[1]!);
      db.pragma("user_version = 2");
      db.exec(`
        INSERT INTO users VALUES ('u', 'u', 'u', 'u', 'x', 0, 0);
        INSERT INTO organizations VALUES ('o', 'o', 'u', '', 'u', 0, 'Essentials', 1, 0, NULL, 0);
        INSERT INTO projects VALUES ('app:p', 'p', 'o', 0, NULL, NULL);
        INSERT INTO devices (uid, project_uid, product_uid, provisioned) VALUES ('dev:1', 'app:p', 'product:a:b', 0);
        INSERT INTO notefiles VALUES ('dev:1', 'f.db', 4, 0, 1, 0, 0);
        INSERT INTO notes (device_uid, file_id, note_id, body, time_sec, change, updates, deleted, endpoint)
          VALUES ('dev:1', 'f.db', 'a', '{}', 0, 1, 0, 0, '1'), ('dev:1', 'f.db', 'b', '{}', 0, 2, 0, 0, '1'),
                 ('dev:1', 'f.db', 'c', '{}', 0, 3, 0, 0, '1');
        INSERT INTO trackers VALUES ('dev:1', 'f.db', 'reader', 3), ('dev:1', 'f.db', '_sync', 1);
      `);
      db.close();

      const store = new SqliteHubStore(path);
      try {
        // `reader` had read notes 1 and 2 (next to read: 3); the device's tracker had read nothing.
        expect(await store.notefiles.trackerPosition("dev:1", "f.db", "reader")).toBe(2);
        expect(await store.notefiles.trackerPosition("dev:1", "f.db", SYNC_TRACKER)).toBe(0);
        expect(await store.notefiles.trackerPosition("dev:1", "f.db", "_sync")).toBe(0);
        const next = await store.notefiles.changes(
          "dev:1",
          "f.db",
          {
            tracker: "reader",
            max: 0,
            start: false,
            stop: false,
            includeDeleted: false,
            deleteReturned: false,
            tombstoneOnDelete: true,
          },
          0,
        );
        expect(next.notes.map((n) => n.noteId)).toEqual(["c"]);
        // Notes stored before keep working: no history yet means only their own change.
        expect(await store.notefiles.getNote("dev:1", "f.db", "a")).toMatchObject({
          history: null,
          conflicts: null,
          where: null,
          arrived: false,
        });
        expect(await store.devices.trackerSession("dev:1")).toBeUndefined();
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
