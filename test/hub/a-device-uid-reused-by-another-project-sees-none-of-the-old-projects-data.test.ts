import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../hub/store/sqlite/migrations.js";
import { SqliteHubStore } from "../../hub/store/sqlite/SqliteHubStore.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

/**
 * A DeviceUID is not an owner: a device deleted from one project (without purge) and provisioned
 * in another must arrive there with nothing of its past (outside tester's report, defect a).
 */
describe("a device UID reused by another project sees none of the old project's data", () => {
  let hub: TestHub;
  const DEV = "dev:5151";
  const A = (suffix: string): string => hub.p(`/devices/${DEV}${suffix}`);
  const B = (suffix: string): string => `/v1/projects/${hub.otherProjectUid}/devices/${DEV}${suffix}`;
  const now = (): number => Math.floor(hub.clock.now() / 1000);

  /** Everything a project member can read about the device. */
  const readAll = async (url: (s: string) => string, as: string): Promise<string> => {
    const parts: string[] = [];
    for (const suffix of ["/latest", "/sessions", "/health-log", "/files", "/files/changes"]) {
      const res = await hub.get(url(suffix), { as });
      expect(res.status, suffix).toBe(200);
      parts.push(res.text);
    }
    return parts.join("\n");
  };

  const seedTelemetry = async (projectUid: string, text: string): Promise<void> => {
    await hub.store.telemetry.addSession({
      uid: hub.ids.uuid(),
      deviceUid: DEV,
      projectUid,
      beganSec: now(),
      endedSec: null,
      firstSync: true,
      data: { note: text },
    });
    await hub.store.telemetry.addHealthLog({
      projectUid,
      deviceUid: DEV,
      whenSec: now(),
      alert: false,
      text,
      type: "boot",
    });
  };

  beforeAll(async () => {
    hub = await TestHub.start();
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("keeps project A's events, sessions, health log and notes out of project B", async () => {
    expect((await hub.post(A("/provision"), { product_uid: hub.productUid })).status).toBe(200);
    expect((await hub.post(A("/notes/data.qi"), { body: { secret: "A-qi-secret" } })).status).toBe(200);
    expect((await hub.post(A("/notes/config.db/pin"), { body: { secret: "A-db-secret" } })).status).toBe(200);
    await seedTelemetry(hub.projectUid, "A-health-secret");
    expect(await readAll(A, "owner")).toContain("A-qi-secret");

    expect((await hub.delete(A(""))).status).toBe(204);
    await hub.clock.advance(60_000);
    const provisioned = await hub.post(
      B("/provision"),
      { product_uid: hub.otherProductUid },
      { as: "outsider" },
    );
    expect(provisioned.status).toBe(200);

    const seen = await readAll(B, "outsider");
    expect(seen).not.toMatch(/A-(qi|db|health)-secret/);
    const latest = await hub.get(B("/latest"), { as: "outsider" });
    expect(latest.json.latest_events).toEqual([]);
    expect((await hub.get(B("/sessions"), { as: "outsider" })).json.sessions).toEqual([]);
    expect((await hub.get(B("/health-log"), { as: "outsider" })).json.health_log).toEqual([]);
    expectErrorBody(await hub.get(B("/notes/data.qi"), { as: "outsider" }), 404);
    expectErrorBody(await hub.get(B("/notes/config.db/pin"), { as: "outsider" }), 404);
  });

  it("purging in project B leaves project A's retained events alone, and A sees only its own", async () => {
    expect(
      (await hub.post(B("/notes/data.qi"), { body: { secret: "B-secret" } }, { as: "outsider" })).status,
    ).toBe(200);
    await seedTelemetry(hub.otherProjectUid, "B-health-secret");
    expect(await readAll(B, "outsider")).toContain("B-secret");
    expect((await hub.delete(B("?purge=true"), { as: "outsider" })).status).toBe(204);

    // Back in project A (which deleted without purge): its own history is still there, B's is not.
    expect((await hub.post(A("/provision"), { product_uid: hub.productUid })).status).toBe(200);
    const seen = await readAll(A, "owner");
    expect(seen).not.toMatch(/B-(secret|health-secret)/);
    const latest = (await hub.get(A("/latest"))).json.latest_events;
    expect(latest.map((e: { body?: { secret?: string } }) => e.body?.secret).sort()).toEqual([
      "A-db-secret",
      "A-qi-secret",
    ]);
    expect((await hub.get(A("/health-log"))).json.health_log).toEqual([
      expect.objectContaining({ text: "A-health-secret" }),
    ]);
    // Per-device state (notefiles, notes, trackers, signals, variables) always goes with the device.
    expectErrorBody(await hub.get(A("/notes/data.qi")), 404);
    expect((await hub.get(A("/files"))).json).toEqual([]);
  });

  it("a purge removes the project's own events, sessions and health log", async () => {
    expect((await hub.delete(A("?purge=true"))).status).toBe(204);
    expect((await hub.post(A("/provision"), { product_uid: hub.productUid })).status).toBe(200);
    expect((await hub.get(A("/latest"))).json.latest_events).toEqual([]);
    expect((await hub.get(A("/sessions"))).json.sessions).toEqual([]);
    expect((await hub.get(A("/health-log"))).json.health_log).toEqual([]);
  });
});

describe("upgrading a hub database attributes the old health log to projects", () => {
  it("keeps entries logged since the device joined its project and drops the unattributable rest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-hub-migrate-"));
    try {
      const path = join(dir, "hub.db");
      const v1 = new Database(path);
      v1.exec(migrations[0]!);
      v1.pragma("user_version = 1");
      const joined = Date.UTC(2026, 0, 10);
      v1.exec(`
        INSERT INTO users (uid, username, name, email, password_hash, created) VALUES ('u', 'u', 'u', 'u', 'x', 0);
        INSERT INTO organizations (uid, name, owner_uid, email, contact_uid, plan_type, event_capacity, plan_start, created)
          VALUES ('o', 'o', 'u', 'u', 'u', 'Essentials', 5000, 0, 0);
        INSERT INTO projects (uid, label, org_uid, created) VALUES ('app:b', 'b', 'o', 0);
      `);
      v1.prepare("INSERT INTO devices (uid, project_uid, product_uid, provisioned) VALUES (?, ?, ?, ?)").run(
        "dev:5151",
        "app:b",
        "product:b",
        joined,
      );
      const log = v1.prepare(
        "INSERT INTO health_log (device_uid, when_sec, alert, text, type) VALUES (?, ?, 0, ?, 'boot')",
      );
      log.run("dev:5151", joined / 1000 - 60, "from the UID's life in another project");
      log.run("dev:5151", joined / 1000 + 60, "since joining app:b");
      log.run("dev:9999", joined / 1000, "of a device deleted without purge");
      v1.close();

      const store = new SqliteHubStore(path);
      try {
        expect(await store.telemetry.listHealthLog("app:b", "dev:5151", {})).toEqual([
          expect.objectContaining({ projectUid: "app:b", text: "since joining app:b" }),
        ]);
        expect(await store.telemetry.listHealthLog("app:a", "dev:5151", {})).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
