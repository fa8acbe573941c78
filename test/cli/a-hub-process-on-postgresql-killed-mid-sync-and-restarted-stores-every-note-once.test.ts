import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { projectApi, startCli, type CliProcess } from "../support/cliProcess.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../support/postgres.js";

/** Six of the sync's batches (100 notes each): the hub is killed once it has stored some. */
const NOTES = 600;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const admin = testPostgresUrl();

/**
 * Exactly once across a crash of the hub: a hub process keeping its records in PostgreSQL is
 * killed (SIGKILL) while a module process syncs a backlog of notes to it, and started again on the
 * same database; the module syncs to the end. Every note is then one event: none lost (the module
 * keeps what the hub did not acknowledge) and none twice (event UIDs come from the notes).
 */
describe.skipIf(!admin)("a hub process on PostgreSQL killed during a sync", () => {
  let dir: string;
  let store: string;
  let port: number;
  let hub: CliProcess | undefined;
  let credentials: Record<string, string>;
  const api = projectApi(() => credentials);

  const startHubProcess = async (): Promise<CliProcess> => {
    const cli = startCli([
      "hub",
      "--dir",
      dir,
      "--store",
      store,
      "--listen",
      `127.0.0.1:${port}`,
      "--tls-listen",
      "off",
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/HTTP API/);
    return cli;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-pg-crash-"));
    store = await createTestDatabase(admin!);
    port = await freePort();
    hub = await startHubProcess();
    credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
  });

  afterAll(async () => {
    await hub?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const request = async (host: HostLineClient, req: Record<string, unknown>) =>
    JSON.parse((await host.transaction(JSON.stringify(req)))!) as Record<string, unknown>;

  /** The events the hub has committed, polled until `enough` says so (its database read directly). */
  async function storedEvents(enough: (n: number) => boolean): Promise<number> {
    const db = new pg.Client({ connectionString: store });
    await db.connect();
    try {
      for (let i = 0; i < 2000; i++) {
        const n = (
          await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE file = 'sensors.qo'")
        ).rows[0]!.n;
        if (Number(n) > 0 && enough(Number(n))) return Number(n);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error("the hub stored no event of the sync");
    } finally {
      await db.end();
    }
  }

  /** Asks for a sync and polls hub.sync.status until it says how it ended. */
  async function sync(host: HostLineClient): Promise<Record<string, unknown>> {
    const before = await request(host, { req: "hub.sync.status" });
    await request(host, { req: "hub.sync" });
    for (let i = 0; i < 400; i++) {
      const status = await request(host, { req: "hub.sync.status" });
      const done = /\{sync-end\}|\{sync-error\}/.test(String(status["status"]));
      if (done && (status["completed"] !== before["completed"] || status["alert"])) return status;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the sync did not end");
  }

  it("stores every note the module synced as exactly one event once it is back", async () => {
    const module = startCli([
      "module",
      "--dir",
      dir,
      "--flash",
      join(dir, "flash"),
      "--tcp",
      "127.0.0.1:0",
      "--hub",
      `http://127.0.0.1:${port}`,
      "--log-level",
      "warn",
    ]);
    const [, host, tcp] = await module.waitFor(/tcp\s+(\S+):(\d+)/);
    await module.waitFor(/synced with the hub: device (dev:\d+)/);
    const client = await HostLineClient.tcp({ host: host!, port: Number(tcp) });
    try {
      for (let i = 0; i < NOTES; i++)
        await request(client, { req: "note.add", file: "sensors.qo", body: { i } });
      // The sync starts; the hub dies under it once it has stored the first of its events.
      await request(client, { req: "hub.sync" });
      const stored = await storedEvents(() => true);
      expect(await hub!.stop("SIGKILL")).toBe("SIGKILL");
      expect(stored).toBeGreaterThan(0);
      hub = await startHubProcess();
      // Synced again until the module has nothing left to send.
      for (let round = 0; round < 20; round++) {
        await sync(client);
        if (!(await request(client, { req: "file.changes.pending" }))["pending"]) break;
      }
      expect(await request(client, { req: "file.changes.pending" })).toEqual({});
      const device = (await request(client, { req: "card.version" }))["device"] as string;
      const page = (await api(`/events?deviceUID=${device}&files=sensors.qo&pageSize=1000`)).json as {
        events: { body: { i: number } }[];
      };
      const seen = page.events.map((e) => e.body.i);
      expect(seen.length).toBe(NOTES);
      expect(new Set(seen).size).toBe(NOTES);
    } finally {
      await client.close();
      expect(await module.stop("SIGTERM")).toBe(0);
    }
  });
});

if (!admin)
  describe("a hub process on PostgreSQL killed during a sync", () =>
    it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
