import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventFilter, EventRecord } from "../../../hub/store/records.js";
import { LATEST_KEYED_EVENTS } from "../../../hub/store/sqlite/eventSql.js";
import { hubDatabaseBefore } from "../../support/olderHubDatabase.js";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { SqliteTelemetryStore } from "../../../hub/store/sqlite/SqliteTelemetryStore.js";

// The events table carries an index only where a read needs one (each is written at every event).
// Every filter the Events API offers, in a page of its default order and of the cursor, is read
// through an index (SQLite's plan searches events, never scans them whole); a device's latest
// events read that device's index entries, not the project's events; and a database made before
// events_device_file was dropped migrates with its events.

const PROJECT = "app:p";
const DEVICE = "dev:1";

const FILTERS: [string, EventFilter][] = [
  ["no filter", {}],
  ["devices", { deviceUids: [DEVICE] }],
  ["serial numbers", { serialNumbers: ["sn-1"] }],
  ["fleets", { fleetUids: ["fleet:a"] }],
  ["sessions", { sessionUids: ["s"] }],
  ["event UIDs", { eventUids: ["e"] }],
  ["notefiles", { files: ["data.qo"] }],
  ["a device's notefile", { deviceUids: [DEVICE], files: ["data.qo"] }],
  ["system notefiles only", { systemFilesOnly: true }],
  ["a capture date range", { fromSec: 1, toSec: 2 }],
  ["a receive date range", { fromSec: 1, toSec: 2, dateType: "received" }],
];

/** The plan's steps on the events table (alias e, or the table itself), each a search or a scan. */
const onEvents = (steps: string[]) => steps.filter((s) => /^(SEARCH|SCAN) (e|e2|events)\b/.test(s));

describe("the events table's indexes", () => {
  let sql: SqliteConnection;
  let telemetry: SqliteTelemetryStore;

  beforeEach(() => {
    sql = new SqliteConnection(":memory:");
    telemetry = new SqliteTelemetryStore(sql);
  });
  afterEach(() => sql.close());

  it.each(FILTERS)(
    "read a page filtered by %s through an index, by page and by cursor",
    async (_name, filter) => {
      for (const query of [
        { order: { by: "captured", descending: true }, page: { offset: 0, limit: 50 } } as const,
        { order: { by: "modified", descending: false }, page: { offset: 50, limit: 50 } } as const,
        { cursor: { cursor: null, descending: false, limit: 50 } } as const,
        { cursor: { cursor: null, descending: true, limit: 50 } } as const,
      ]) {
        const steps = await telemetry.planOf(PROJECT, filter, query);
        const events = onEvents(steps);
        expect(events.length, steps.join(" | ")).toBeGreaterThan(0);
        for (const step of events)
          expect(step).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX \w+ \(project_key=\?/);
      }
    },
  );

  it("read a device's latest events from its own index entries, not the project's events", () => {
    const steps = (
      sql.db.prepare(`EXPLAIN QUERY PLAN ${LATEST_KEYED_EVENTS}`).all(PROJECT, DEVICE, PROJECT, DEVICE) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
    const events = onEvents(steps);
    expect(events[0]).toMatch(
      /^SEARCH events USING INDEX events_device \(project_key=\? AND device_uid=\?\)/,
    );
    for (const step of events.slice(1))
      expect(step).toMatch(/USING (COVERING )?INDEX \w+ \((uid=\?|project_key=\? AND received=\?)\)/);
  });

  it("has no index that no read needs: events_device_file is gone", () => {
    const indexes = sql.all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name",
    );
    expect(indexes.map((i) => i.name)).toEqual([
      "events_arrival",
      "events_captured",
      "events_device",
      "events_project",
      "events_session",
      "sqlite_autoindex_events_1",
    ]);
  });
});

describe("a hub database made before events_device_file was dropped", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-events-migrate-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("migrates with its events, and reads each notefile's latest event as before", async () => {
    const path = join(dir, "hub.db");
    const db = hubDatabaseBefore(path, "DROP INDEX events_device_file");
    const insert =
      db.prepare(`INSERT INTO events (uid, project_uid, device_uid, session_uid, file, received, captured, billable, data)
      VALUES (?, ?, ?, NULL, ?, ?, ?, 1, '{}')`);
    insert.run("a1", PROJECT, DEVICE, "data.qo", 10, 5);
    insert.run("a2", PROJECT, DEVICE, "data.qo", 20, 6);
    insert.run("b1", PROJECT, DEVICE, "_session.qo", 15, 7);
    insert.run("c1", PROJECT, "dev:2", "data.qo", 30, 8);
    db.close();

    const store = new SqliteHubStore(path);
    try {
      const latest: EventRecord[] = await store.telemetry.latestEvents(PROJECT, DEVICE);
      expect(latest.map((e) => e.uid)).toEqual(["a2", "b1"]);
      const page = await store.telemetry.listEvents(
        PROJECT,
        { deviceUids: [DEVICE] },
        { by: "captured", descending: false },
        { offset: 0, limit: 10 },
      );
      expect(page.items.map((e) => e.uid)).toEqual(["a1", "a2", "b1"]);
    } finally {
      await store.close();
    }
    const reopened = new Database(path, { readonly: true });
    try {
      const names = (
        reopened
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")
          .all() as {
          name: string;
        }[]
      ).map((r) => r.name);
      expect(names).toContain("events_device");
      expect(names).not.toContain("events_device_file");
    } finally {
      reopened.close();
    }
  });
});
