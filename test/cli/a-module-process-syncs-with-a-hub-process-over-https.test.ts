import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { projectApi, SESSION_LOGGED, startCli, syncAndWait, type CliProcess } from "../support/cliProcess.js";

/** Two processes, as on two machines: `cardsim hub` and `cardsim module --hub https://...`. */
describe("a module process and a hub process", () => {
  let dir: string;
  let hub: CliProcess;
  let credentials: Record<string, string>;

  const call = projectApi(() => credentials);
  const api = async (path: string, init: { method?: string; body?: unknown } = {}) =>
    (await call(path, init)).json;

  async function startModule(): Promise<{ cli: CliProcess; host: HostLineClient; device: string }> {
    const cli = startCli([
      "module",
      "--dir",
      dir,
      "--flash",
      join(dir, "flash"),
      "--tcp",
      "127.0.0.1:0",
      "--hub",
      credentials["hub_tls_url"]!,
      "--log-level",
      "info",
    ]);
    const [, host, port] = await cli.waitFor(/tcp\s+(\S+):(\d+)/);
    // The session it opens at start ends, and the module says how it went (and logs it).
    await cli.waitFor(/synced with the hub: device dev:\d+ at https:\/\/localhost:\d+/);
    await cli.waitForLogs(SESSION_LOGGED, 1);
    const client = await HostLineClient.tcp({ host: host!, port: Number(port) });
    const version = JSON.parse((await client.transaction('{"req":"card.version"}'))!) as { device: string };
    return { cli, host: client, device: version.device };
  }

  const request = async (host: HostLineClient, req: Record<string, unknown>) =>
    JSON.parse((await host.transaction(JSON.stringify(req)))!) as Record<string, unknown>;

  /** Asks for a sync and resolves with hub.sync.status once the module logged its end. */
  const sync = (module: { cli: CliProcess; host: HostLineClient }) =>
    syncAndWait(module.cli, (req) => request(module.host, req));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-two-"));
    hub = startCli([
      "hub",
      "--dir",
      dir,
      "--listen",
      "127.0.0.1:0",
      "--tls-listen",
      "127.0.0.1:0",
      "--log-level",
      "warn",
    ]);
    await hub.waitFor(/HTTPS API/);
    credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
  });

  afterAll(async () => {
    expect(await hub.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("sync over HTTPS: notes become events once, even after the module is killed and restarted, and inbound notes arrive", async () => {
    let module = await startModule();
    const device = module.device;
    for (let i = 0; i < 3; i++) {
      await request(module.host, { req: "note.add", file: "sensors.qo", body: { i } });
    }
    expect(await sync(module)).toMatchObject({ status: expect.stringMatching(/\{sync-end\}/) });
    await request(module.host, { req: "note.add", file: "sensors.qo", body: { i: 3 } });
    // Killed without warning: what it acknowledged is on its flash; the rest is sent again.
    await module.host.close();
    expect(await module.cli.stop("SIGKILL")).toBe("SIGKILL");

    module = await startModule();
    expect(module.device).toBe(device);
    await api(`/devices/${device}/notes/commands.qi`, { method: "POST", body: { body: { led: "on" } } });
    expect(await sync(module)).toMatchObject({ status: expect.stringMatching(/\{sync-end\}/) });
    const events = (await api(`/events?deviceUID=${device}&files=sensors.qo&sortBy=captured&sortOrder=asc`))[
      "events"
    ] as { body: { i: number } }[];
    expect(events.map((e) => e.body.i).sort()).toEqual([0, 1, 2, 3]);
    expect(await request(module.host, { req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { led: "on" },
    });
    const key = await api(`/devices/${device}/public-key`);
    expect(String(key["key"])).toMatch(/BEGIN PUBLIC KEY/);
    await module.host.close();
    expect(await module.cli.stop("SIGTERM")).toBe(0);
  });

  it("a module whose hub is away serves its host at once and says its first sync failed", async () => {
    const away = mkdtempSync(join(tmpdir(), "cardsim-away-"));
    try {
      const cli = startCli([
        "module",
        "--dir",
        away,
        "--no-flash",
        "--tcp",
        "127.0.0.1:0",
        // Loopback, a port nothing listens on (the hub's HTTP port once it has stopped would do).
        "--hub",
        "http://127.0.0.1:1",
        "--product",
        "product:com.example:away",
        "--log-level",
        "warn",
      ]);
      const [, host, port] = await cli.waitFor(/tcp\s+(\S+):(\d+)/);
      const client = await HostLineClient.tcp({ host: host!, port: Number(port) });
      expect(await request(client, { req: "card.version" })).toMatchObject({ device: expect.any(String) });
      await cli.waitFor(/first sync failed: .+ \(notes stay on the module until a sync succeeds\)/);
      await client.close();
      expect(await cli.stop("SIGTERM")).toBe(0);
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  });
});
