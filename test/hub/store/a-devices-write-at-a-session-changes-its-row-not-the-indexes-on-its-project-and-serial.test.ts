import { mkdtempSync, openSync, readSync, closeSync, rmSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { SqliteDeviceStore } from "../../../hub/store/sqlite/SqliteDeviceStore.js";

const PROJECT = "app:00000000-0000-4000-8000-000000000001";
const DEVICE = "dev:864475040000001";

/**
 * A session rewrites its device (the report at its open, the close): over the record it read, as
 * one conditional UPDATE. SQLite rewrites the entries of every index on a column an UPDATE sets,
 * changed or not, so setting the project and serial number again would cost a page of the log each
 * (devices_project, devices_serial) at every session. Counted from the log's own frames.
 */
describe("a device's write at a session", () => {
  let dir: string;
  let sql: SqliteConnection;
  let devices: SqliteDeviceStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-device-write-"));
    sql = new SqliteConnection(join(dir, "hub.db"));
    sql.db.exec(`
      INSERT INTO users (uid, username, name, email, password_hash, created) VALUES ('u', 'u', 'u', 'u', 'x', 0);
      INSERT INTO organizations (uid, name, owner_uid, email, contact_uid, plan_type, event_capacity, plan_start, created)
        VALUES ('o', 'o', 'u', 'e', 'u', 'free', 0, 0, 0);
      INSERT INTO projects (uid, label, org_uid, created) VALUES ('${PROJECT}', 'p', 'o', 0);`);
    devices = new SqliteDeviceStore(sql);
  });
  afterEach(() => {
    sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The b-trees whose pages `write` put in the log. */
  async function treesWritten(write: () => Promise<unknown>): Promise<string[]> {
    const path = join(dir, "hub.db");
    const pageSize = sql.db.pragma("page_size", { simple: true }) as number;
    const frames = () => {
      const header = Buffer.alloc(48);
      const shm = openSync(`${path}-shm`, "r");
      readSync(shm, header, 0, 48, 0);
      closeSync(shm);
      return endianness() === "LE" ? header.readUInt32LE(16) : header.readUInt32BE(16);
    };
    const before = frames();
    await write();
    const after = frames();
    expect(after).toBeGreaterThan(before);
    const wal = openSync(`${path}-wal`, "r");
    const pages = new Set<number>();
    const number = Buffer.alloc(4);
    for (let i = before; i < after; i++) {
      readSync(wal, number, 0, 4, 32 + i * (pageSize + 24));
      pages.add(number.readUInt32BE(0));
    }
    closeSync(wal);
    const owner = new Map(
      sql
        .all<{ name: string; pageno: number }>("SELECT name, pageno FROM dbstat")
        .map((r) => [r.pageno, r.name]),
    );
    return [...new Set([...pages].map((p) => owner.get(p) ?? `page ${p}`))].sort();
  }

  it("writes the devices table alone when its serial number stays, and its serial's index too when that changes", async () => {
    const first = {
      uid: DEVICE,
      projectUid: PROJECT,
      productUid: "product:x",
      serialNumber: "sn-1",
      voltage: 3.7,
    };
    let read = await devices.putDevice(first);
    for (let other = 2; other < 200; other++) {
      await devices.putDevice({
        ...first,
        uid: `dev:8644750400${String(other).padStart(5, "0")}`,
        serialNumber: `sn-${other}`,
      });
    }
    read = (await devices.getDevice(DEVICE))!;
    expect(
      await treesWritten(async () => {
        read = await devices.putDevice({ ...first, voltage: 3.6, lastActivity: 1_000 }, read);
      }),
    ).toEqual(["devices"]);
    expect(read).toMatchObject({ serialNumber: "sn-1", voltage: 3.6, lastActivity: 1_000 });

    expect(
      await treesWritten(async () => {
        read = await devices.putDevice({ ...first, voltage: 3.6, serialNumber: "garage" }, read);
      }),
    ).toEqual(["devices", "devices_serial"]);
    expect((await devices.findBySerial(PROJECT, "garage")).map((d) => d.uid)).toEqual([DEVICE]);
    expect(await devices.findBySerial(PROJECT, "sn-1")).toEqual([]);
    expect(await devices.getDevice(DEVICE)).toMatchObject({ serialNumber: "garage", voltage: 3.6 });
  });
});
