import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { Fleet } from "../../../runtime/fleet/Fleet.js";
import { SENSORS_WORKLOAD } from "../../../runtime/fleet/workload.js";

// When a run ends every module syncs what it still holds (the fleet's drain), 16 modules at a
// time. What a batch's sessions store is committed together (as the run's sessions are, in group
// commits), not one COMMIT a session; and the drain moves the fleet's clock only for what waits
// on it, so that the modules' own schedules add no session after the run. Every note is still
// exactly one event.

const MODULES = 48;
const HOURS = 2;
const HOUR = 3_600_000;
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a fleet's drain after the run", () => {
  it("commits each batch of the last syncs together and leaves the clock where the run ended", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-fleet-drain-"));
    dirs.push(dir);
    let commits = 0;
    const statement = SqliteConnection.prototype.statement;
    vi.spyOn(SqliteConnection.prototype, "statement").mockImplementation(function (
      this: SqliteConnection,
      sql: string,
    ) {
      if (sql === "COMMIT") commits++;
      return statement.call(this, sql);
    });
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const started = clock.now();
    const fleet = await Fleet.start({ modules: MODULES, workload: SENSORS_WORKLOAD, hub: { dir }, clock });
    try {
      let commitsAtRunEnd = -1;
      let sessionsAtRunEnd = -1;
      const summary = await fleet.run(HOURS * HOUR, (p) => {
        if (p.simulatedMs !== p.durationMs) return;
        commitsAtRunEnd = commits;
        sessionsAtRunEnd = p.sessions;
      });
      expect(summary.sessions.failed).toBe(0);
      // Every note the modules added is one event, the drain's included.
      expect(summary.notes.added).toBe(MODULES * HOURS * 4);
      expect(summary.events?.notes).toBe(MODULES * HOURS * 4);
      // One session a module in the drain (each holds its last notes), and none more: the clock
      // did not move on for the modules' own schedules.
      expect(summary.sessions.ok - sessionsAtRunEnd).toBe(MODULES);
      expect(clock.now()).toBe(started + HOURS * HOUR);
      // A commit (or two: the group, then what the hub settles) a batch of 16, not one a session.
      expect(commitsAtRunEnd).toBeGreaterThan(0);
      const drainCommits = commits - commitsAtRunEnd;
      expect(drainCommits).toBeGreaterThanOrEqual(MODULES / 16);
      expect(drainCommits).toBeLessThanOrEqual((2 * MODULES) / 16);
    } finally {
      await fleet.close();
    }
  }, 120_000);
});
