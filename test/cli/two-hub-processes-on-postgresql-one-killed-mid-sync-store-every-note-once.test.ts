import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { projectApi, startCli, type CliProcess } from "../support/cliProcess.js";
import {
  freePort,
  hubCredentials,
  startHubProcess,
  startRoundRobinProxy,
  twinHubDirectory,
  type RoundRobinProxy,
} from "../support/hubProcesses.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../support/postgres.js";

const admin = testPostgresUrl();
/** Batches of notes synced one after the other; one hub is killed during one of them. */
const ROUNDS = 3;
const NOTES_PER_ROUND = 300;

/** A seeded choice (a fixed LCG): which hub dies, in which round, after how many events. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Exactly once across two hub processes and a kill: a module syncs backlogs of notes through a
 * round-robin in front of two `cardsim hub` processes over one PostgreSQL database (each message
 * to the other process than the one before); one of them, chosen at random (seeded), is killed
 * with SIGKILL at a random point of a random sync, and started again. The module syncs until it
 * has nothing left: every note it synced is then exactly one event.
 */
describe.skipIf(!admin)("two hub processes on PostgreSQL, one killed during a sync", () => {
  let root: string;
  let store: string;
  const hubs: CliProcess[] = [];
  const ports: number[] = [];
  let proxy: RoundRobinProxy;
  let credentials: Record<string, string>;
  const api = projectApi(() => credentials);
  const dirOf = (i: number) => join(root, `hub${i}`);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "cardsim-two-hubs-kill-"));
    store = await createTestDatabase(admin!);
    for (let i = 0; i < 2; i++) {
      if (i > 0) twinHubDirectory(dirOf(0), dirOf(i));
      ports.push(await freePort());
      hubs.push(await startHubProcess({ dir: dirOf(i), store, port: ports[i]! }));
    }
    credentials = hubCredentials(dirOf(0));
    proxy = await startRoundRobinProxy(ports.map((port) => ({ host: "127.0.0.1", port })));
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    for (const hub of hubs) await hub.stop("SIGTERM");
    rmSync(root, { recursive: true, force: true });
  });

  /** Events of the sync's notefile committed so far (the database read directly). */
  async function storedEvents(db: pg.Client): Promise<number> {
    const n = (await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE file = 'sensors.qo'"))
      .rows[0]!.n;
    return Number(n);
  }

  /** Asks for a sync and polls hub.sync.status until it says how it ended. */
  async function syncToEnd(request: (req: Record<string, unknown>) => Promise<Record<string, unknown>>) {
    const before = await request({ req: "hub.sync.status" });
    await request({ req: "hub.sync" });
    for (let i = 0; i < 2000; i++) {
      const status = await request({ req: "hub.sync.status" });
      const done = /\{sync-end\}|\{sync-error\}/.test(String(status["status"]));
      if (done && (status["completed"] !== before["completed"] || status["alert"])) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the sync did not end");
  }

  it("stores every note the module synced as exactly one event", async () => {
    const random = seeded(27);
    const victim = random() < 0.5 ? 0 : 1;
    const killRound = Math.floor(random() * ROUNDS);
    const module = startCli([
      "module",
      "--dir",
      dirOf(0),
      "--flash",
      join(root, "flash"),
      "--tcp",
      "127.0.0.1:0",
      "--hub",
      proxy.url,
      "--log-level",
      "warn",
    ]);
    const [, host, tcp] = await module.waitFor(/tcp\s+(\S+):(\d+)/);
    await module.waitFor(/synced with the hub: device (dev:\d+)/);
    const client = await HostLineClient.tcp({ host: host!, port: Number(tcp) });
    const request = async (req: Record<string, unknown>) =>
      JSON.parse((await client.transaction(JSON.stringify(req)))!) as Record<string, unknown>;
    const db = new pg.Client({ connectionString: store });
    await db.connect();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < NOTES_PER_ROUND; i++)
          await request({ req: "note.add", file: "sensors.qo", body: { i: round * NOTES_PER_ROUND + i } });
        const before = await storedEvents(db);
        await request({ req: "hub.sync" });
        if (round === killRound) {
          // Killed once the sync has stored a random share of the round's notes.
          const share = 1 + Math.floor(random() * (NOTES_PER_ROUND / 2));
          for (let i = 0; i < 4000 && (await storedEvents(db)) < before + share; i++)
            await new Promise((resolve) => setTimeout(resolve, 5));
          expect(await hubs[victim]!.stop("SIGKILL")).toBe("SIGKILL");
          hubs[victim] = await startHubProcess({ dir: dirOf(victim), store, port: ports[victim]! });
        }
        // Synced again until the module has nothing left to send.
        for (let attempt = 0; attempt < 20; attempt++) {
          if (!(await request({ req: "file.changes.pending" }))["pending"]) break;
          await syncToEnd(request);
        }
      }
      expect(await request({ req: "file.changes.pending" })).toEqual({});
      const device = (await request({ req: "card.version" }))["device"] as string;
      const page = (await api(`/events?deviceUID=${device}&files=sensors.qo&pageSize=1000`)).json as {
        events: { body: { i: number } }[];
      };
      const seen = page.events.map((e) => e.body.i);
      expect(seen.length).toBe(ROUNDS * NOTES_PER_ROUND);
      expect(new Set(seen).size).toBe(ROUNDS * NOTES_PER_ROUND);
    } finally {
      await db.end();
      await client.close();
      expect(await module.stop("SIGTERM")).toBe(0);
    }
  }, 300_000);
});

if (!admin)
  describe("two hub processes on PostgreSQL, one killed during a sync", () =>
    it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
