import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { HttpEndpoint } from "../hub/routes/support/servers.js";
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
const NOTES = 150;

/** Polls `found` every 20 ms until it gives something, for up to `ms`. */
async function until<T>(found: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await found();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The sync message a forwarded request carried (`hello`, `open`, `push`, `signals`, ...). */
const messageOf = (body: string | undefined): { type?: string; push?: unknown; close?: unknown } => {
  try {
    return JSON.parse(body ?? "") as { type?: string; push?: unknown; close?: unknown };
  } catch {
    return {};
  }
};
/** A message that ends a session: a close, or an open carrying its close (folded messages). */
const closes = (body: string | undefined): boolean => {
  const m = messageOf(body);
  return m.type === "close" || (m.type === "open" && m.close !== undefined);
};
/** A message that carries a batch of notes: a push, or an open carrying the first (folded messages). */
const pushes = (body: string | undefined): boolean => {
  const m = messageOf(body);
  return m.type === "push" || (m.type === "open" && m.push !== undefined);
};

/**
 * Two `cardsim hub` processes over one PostgreSQL database, behind a round-robin of our own that
 * sends each HTTP request to the other process than the last: one module syncs through it, each
 * of its messages landing on another process than the one before. Whatever a message needs from
 * the one before it (the session, the challenge) is found by either process; a route delivers
 * each event once; a signal and a `.qi` note queued through one process reach the module whose
 * continuous session waits on the other; the console's stream of one process tells the events the
 * other stored.
 */
describe.skipIf(!admin)("two hub processes over one PostgreSQL database behind a round-robin", () => {
  let root: string;
  const hubs: CliProcess[] = [];
  const ports: number[] = [];
  let proxy: RoundRobinProxy;
  let sink: HttpEndpoint;
  let module: CliProcess;
  let client: HostLineClient;
  let device: string;
  let credentials: Record<string, string>;
  /** The project API of hub process `i` (not through the round-robin). */
  const apiOf = (i: number) =>
    projectApi(() => ({ ...credentials, hub_url: `http://127.0.0.1:${ports[i]}` }));

  const request = async (req: Record<string, unknown>) =>
    JSON.parse((await client.transaction(JSON.stringify(req)))!) as Record<string, unknown>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "cardsim-two-hubs-"));
    const store = await createTestDatabase(admin!);
    for (let i = 0; i < 2; i++) {
      const dir = join(root, `hub${i}`);
      if (i > 0) twinHubDirectory(join(root, "hub0"), dir);
      ports.push(await freePort());
      hubs.push(await startHubProcess({ dir, store, port: ports[i]! }));
    }
    credentials = hubCredentials(join(root, "hub0"));
    proxy = await startRoundRobinProxy(ports.map((port) => ({ host: "127.0.0.1", port })));
    sink = await HttpEndpoint.start();
    const route = await apiOf(1)("/routes", {
      method: "POST",
      body: {
        label: "sink",
        type: "http",
        http: { url: `${sink.url}/in`, filter: { type: "include", files: ["sensors.qo"] } },
      },
    });
    expect(route.status, JSON.stringify(route.json)).toBe(201);
    module = startCli([
      "module",
      "--dir",
      join(root, "hub0"),
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
    device = (await module.waitFor(/synced with the hub: device (dev:\d+)/))[1]!;
    client = await HostLineClient.tcp({ host: host!, port: Number(tcp) });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await module?.stop("SIGTERM");
    await proxy?.close();
    for (const hub of hubs) await hub.stop("SIGTERM");
    await sink?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("syncs a module whose messages alternate processes, each note one event, each delivered once", async () => {
    // The console's stream of process 0 hears what process 1 stores too.
    const stream = await fetch(`http://127.0.0.1:${ports[0]}/console/api/stream?kinds=event`, {
      headers: { authorization: `Bearer ${credentials["token"]}` },
    });
    expect(stream.status).toBe(200);
    const streamed = new Set<number>();
    const reading = (async () => {
      const decoder = new TextDecoder();
      let text = "";
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        for (const match of text.matchAll(/"file":"sensors\.qo"[^\n]*?"body":\{"i":(\d+)\}/g))
          streamed.add(Number(match[1]));
        text = text.slice(text.lastIndexOf("\n") + 1);
        if (streamed.size === NOTES) return;
      }
    })();

    for (let i = 0; i < NOTES; i++) await request({ req: "note.add", file: "sensors.qo", body: { i } });
    const sessionsBefore = proxy.forwarded.filter((f) => closes(f.body)).length;
    await request({ req: "hub.sync" });
    await until(
      async () => (proxy.forwarded.filter((f) => closes(f.body)).length > sessionsBefore ? true : undefined),
      "the sync's close",
    );
    expect(await request({ req: "file.changes.pending" })).toEqual({});

    // Each of the session's messages went to the other process than the one before it.
    const sync = proxy.forwarded.filter((f) => f.path === "/device/v1");
    const batches = sync.filter((f) => pushes(f.body));
    expect(batches.length).toBeGreaterThan(1);
    expect(new Set(batches.map((f) => f.target))).toEqual(new Set([0, 1]));

    for (const api of [apiOf(0), apiOf(1)]) {
      const page = (await api(`/events?deviceUID=${device}&files=sensors.qo&pageSize=1000`)).json as {
        events: { body: { i: number } }[];
      };
      const seen = page.events.map((e) => e.body.i);
      expect(seen.length).toBe(NOTES);
      expect(new Set(seen).size).toBe(NOTES);
    }

    // Delivered once each, by one of the processes (whichever stored the event).
    await sink.receivedCount(NOTES);
    await until(async () => (streamed.size === NOTES ? true : undefined), "the stream's events", 60_000);
    await reading;
    const delivered = sink.received.map((r) => (r.json as { body: { i: number } }).body.i);
    expect(new Set(delivered).size).toBe(NOTES);
    expect(delivered.length).toBe(NOTES);
  }, 180_000);

  it("wakes a continuous session waiting on one process with a signal and a .qi note queued through the other", async () => {
    await request({ req: "hub.set", mode: "continuous", sync: true });
    const held = await until(async () => {
      const last = proxy.forwarded.findLast((f) => messageOf(f.body).type === "signals");
      return last && (await request({ req: "hub.status" }))["connected"] === true ? last : undefined;
    }, "a held session");
    // Queued through the process that does not hold the wait.
    const other = 1 - held.target;
    const sent = Date.now();
    const signal = await apiOf(other)(`/devices/${device}/signal`, {
      method: "POST",
      body: { body: { go: 1 } },
    });
    expect(signal.status).toBe(200);
    const got = await until(async () => {
      const answer = await request({ req: "hub.signal" });
      return answer["body"] ? answer : undefined;
    }, "the signal");
    expect(got["body"]).toEqual({ go: 1 });
    // Well before the module's wait of 60 s would have ended on its own.
    expect(Date.now() - sent).toBeLessThan(20_000);

    const note = await apiOf(other)(`/devices/${device}/notes/data.qi`, {
      method: "POST",
      body: { body: { n: 7 } },
    });
    expect(note.status).toBe(200);
    const taken = await until(async () => {
      const answer = await request({ req: "note.get", file: "data.qi", delete: true });
      return answer["body"] ? answer : undefined;
    }, "the .qi note");
    expect(taken["body"]).toEqual({ n: 7 });
    expect(Date.now() - sent).toBeLessThan(40_000);
    expect((await request({ req: "note.get", file: "data.qi" }))["err"]).toMatch(/note-noexist|no note/);
    await request({ req: "hub.set", mode: "periodic" });
  }, 120_000);
});

if (!admin)
  describe("two hub processes over one PostgreSQL database behind a round-robin", () =>
    it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
