import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hubDatabaseBefore } from "../../support/olderHubDatabase.js";
import { SQLITE_PROJECT_DELETION, SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { anEvent, OTHER_PROJECT, PROJECT, putDevice, seedProject, T0 } from "./contract/support/seed.js";

// Every index of the SQLite events table leads with a small integer per project (project_keys)
// instead of the project's 40-character UID, so that each event writes index entries a fifth to a
// half the size. The key is the project's only through the events: a project's reads, usage,
// device purge and deletion see its own events and no other project's; a key given inside a
// transaction that rolls back is gone with it; and a database made before the keys migrates.

const S0 = T0 / 1000;

/** The first column of each of the events' own indexes (not the UID's). */
function leadingColumns(db: Database.Database): Record<string, string> {
  const names = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  return Object.fromEntries(
    names.map((name) => [name, (db.pragma(`index_info(${name})`) as { name: string }[])[0]!.name]),
  );
}

describe("the SQLite events' project keys", () => {
  let store: SqliteHubStore;
  const db = () => rawDb(store);

  beforeEach(async () => {
    store = new SqliteHubStore(":memory:");
    await seedProject(store);
    await putDevice(store, 1);
  });
  afterEach(() => store.close());

  it("lead every index of the events, one small integer a project", async () => {
    // The other project's first event comes first: keys go by first event, not by UID.
    await store.telemetry.addEvents([anEvent("b1", { projectUid: OTHER_PROJECT })]);
    await store.telemetry.addEvents([anEvent("a1"), anEvent("a2")]);
    expect(leadingColumns(db())).toEqual({
      events_arrival: "project_key",
      events_captured: "project_key",
      events_device: "project_key",
      events_project: "project_key",
      events_session: "project_key",
    });
    expect(db().prepare("SELECT key, uid FROM project_keys ORDER BY key").all()).toEqual([
      { key: 1, uid: OTHER_PROJECT },
      { key: 2, uid: PROJECT },
    ]);
    const stored = db().prepare("SELECT uid, project_key FROM events ORDER BY rowid").all();
    expect(stored).toEqual([
      { uid: "b1", project_key: 1 },
      { uid: "a1", project_key: 2 },
      { uid: "a2", project_key: 2 },
    ]);
  });

  it("keep each project's reads, usage, device purge and deletion to its own events", async () => {
    const t = store.telemetry;
    await t.addEvents([
      anEvent("a1", { received: S0 + 1 }),
      anEvent("b1", { projectUid: OTHER_PROJECT, received: S0 + 2 }),
      anEvent("a2", { received: S0 + 3 }),
    ]);
    const list = async (project: string) =>
      (
        await t.listEvents(project, {}, { by: "captured", descending: false }, { offset: 0, limit: 10 })
      ).items.map((e) => e.uid);
    const cursor = async (project: string) =>
      (await t.eventsFromCursor(project, {}, { cursor: null, descending: false, limit: 10 })).items.map(
        (e) => e.uid,
      );
    expect(await list(PROJECT)).toEqual(["a1", "a2"]);
    expect(await list(OTHER_PROJECT)).toEqual(["b1"]);
    expect(await cursor(OTHER_PROJECT)).toEqual(["b1"]);
    expect((await t.latestEvents(OTHER_PROJECT, "dev:1")).map((e) => e.uid)).toEqual(["b1"]);
    expect(await list("app:never-had-an-event")).toEqual([]);
    const usage = await t.eventUsage(OTHER_PROJECT, {
      fromSec: S0,
      toSec: S0 + 86_400,
      period: "day",
      aggregate: "project",
    });
    expect(usage.reduce((n, row) => n + row.events, 0)).toBe(1);

    // The device purge goes by the device's project: the other project's event of the same UID stays.
    await store.devices.deleteDevice("dev:1", true);
    expect(await list(PROJECT)).toEqual([]);
    expect(await list(OTHER_PROJECT)).toEqual(["b1"]);

    // Deleting a project takes its events by their key (through an index) and the key with them.
    for (const statement of SQLITE_PROJECT_DELETION.filter((s) => s.startsWith("DELETE FROM events"))) {
      const plan = db().prepare(`EXPLAIN QUERY PLAN ${statement}`).all("x") as { detail: string }[];
      expect(plan.map((p) => p.detail).join(" | ")).toMatch(
        /^SEARCH events USING (COVERING )?INDEX \w+ \(project_key=\?\)/,
      );
    }
    expect(await store.deleteProject(OTHER_PROJECT)).toBe(true);
    expect(await list(OTHER_PROJECT)).toEqual([]);
    expect(db().prepare("SELECT uid FROM project_keys").all()).toEqual([{ uid: PROJECT }]);
  });

  it("drop a key given inside a transaction that rolls back, and give one the database holds after", async () => {
    await expect(
      store.transaction(async () => {
        await store.telemetry.addEvents([anEvent("b1", { projectUid: OTHER_PROJECT })]);
        throw new Error("undone");
      }),
    ).rejects.toThrow("undone");
    expect(db().prepare("SELECT count(*) AS n FROM project_keys").get()).toEqual({ n: 0 });
    // Another project's key is given meanwhile; the rolled-back key must not be reused from memory.
    await store.telemetry.addEvents([anEvent("a1")]);
    await store.telemetry.addEvents([anEvent("b2", { projectUid: OTHER_PROJECT })]);
    const page = await store.telemetry.listEvents(
      OTHER_PROJECT,
      {},
      { by: "captured", descending: false },
      { offset: 0, limit: 10 },
    );
    expect(page.items.map((e) => e.uid)).toEqual(["b2"]);
    expect(
      db().prepare("SELECT count(*) AS n FROM events e JOIN project_keys k ON k.key = e.project_key").get(),
    ).toEqual({ n: 2 });
  });
});

describe("a hub database made before the events' project keys", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-project-keys-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("migrates: each project's events get its key and read as before, and new events join them", async () => {
    const path = join(dir, "hub.db");
    const old = hubDatabaseBefore(path, "CREATE TABLE project_keys");
    const insert =
      old.prepare(`INSERT INTO events (uid, project_uid, device_uid, session_uid, file, received, captured, billable, data)
      VALUES (?, ?, 'dev:1', NULL, 'data.qo', ?, ?, 1, '{}')`);
    insert.run("a1", PROJECT, S0 + 1, S0 + 1);
    insert.run("b1", OTHER_PROJECT, S0 + 2, S0 + 2);
    insert.run("a2", PROJECT, S0 + 3, S0 + 3);
    old.close();

    const store = new SqliteHubStore(path);
    try {
      await store.telemetry.addEvents([anEvent("a3", { received: S0 + 4, whenSec: S0 + 4 })]);
      const uids = async (project: string) =>
        (
          await store.telemetry.listEvents(
            project,
            {},
            { by: "captured", descending: false },
            { offset: 0, limit: 10 },
          )
        ).items.map((e) => e.uid);
      expect(await uids(PROJECT)).toEqual(["a1", "a2", "a3"]);
      expect(await uids(OTHER_PROJECT)).toEqual(["b1"]);
      expect(leadingColumns(rawDb(store)).events_captured).toBe("project_key");
      expect(
        rawDb(store).prepare("SELECT count(*) AS n FROM events WHERE project_key IS NULL").get(),
      ).toEqual({
        n: 0,
      });
    } finally {
      await store.close();
    }
  });
});

/** The store's own connection (tests only). */
function rawDb(store: SqliteHubStore): Database.Database {
  return (store.telemetry as unknown as { sql: { db: Database.Database } }).sql.db;
}
