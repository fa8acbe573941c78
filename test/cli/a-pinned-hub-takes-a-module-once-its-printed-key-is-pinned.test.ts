import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import {
  projectApi,
  runCli,
  SESSION_LOGGED,
  startCli,
  syncAndWait,
  type CliProcess,
} from "../support/cliProcess.js";

/**
 * `cardsim hub --device-auth pinned` and a module process: the module's key, printed by
 * `cardsim module --print-key` (no port taken) and shown in its banner, pinned through the API,
 * lets it in; before that it is refused with the way to pin it.
 */
describe("a hub in pinned mode and a module process", () => {
  let dir: string;
  let hub: CliProcess;
  let credentials: Record<string, string>;

  const api = projectApi(() => credentials);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-pinned-"));
    hub = startCli([
      "hub",
      "--dir",
      dir,
      "--listen",
      "127.0.0.1:0",
      "--tls-listen",
      "127.0.0.1:0",
      "--device-auth",
      "pinned",
      "--log-level",
      "warn",
    ]);
    await hub.waitFor(/device auth\s+pinned/);
    credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
  });

  afterAll(async () => {
    expect(await hub.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses the module until its printed key is pinned, then syncs it", async () => {
    const flash = join(dir, "flash");
    // A new flash: --print-key makes the identity, keeps it, and prints the same key again.
    const printed = await runCli(["module", "--dir", dir, "--flash", flash, "--print-key"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(
      /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/,
    );
    const device = /the key of (dev:\d+)/.exec(printed.stderr)?.[1];
    expect(device).toBeDefined();
    expect(printed.stderr).toContain(`/devices/${device}/public-key`);
    const again = await runCli(["module", "--dir", dir, "--flash", flash, "--print-key"]);
    expect(again.stdout).toBe(printed.stdout);

    const cli = startCli([
      "module",
      "--dir",
      dir,
      "--flash",
      flash,
      "--tcp",
      "127.0.0.1:0",
      "--hub",
      credentials["hub_tls_url"]!,
      "--log-level",
      "info",
    ]);
    const [, host, port] = await cli.waitFor(/tcp\s+(\S+):(\d+)/);
    const base64 = printed.stdout.split("\n")[1]!;
    expect(cli.stdout()).toContain(`key  ${base64}`);
    const [refusal] = await cli.waitFor(/first sync failed: .*/);
    await cli.waitForLogs(SESSION_LOGGED, 1);
    expect(refusal).toContain(`PUT /v1/projects/${credentials["project_uid"]}/devices/${device}/public-key`);
    expect(refusal).toContain("cardsim module --print-key");

    const provisioned = await api(`/devices/${device}/provision`, {
      method: "POST",
      body: { product_uid: credentials["product_uid"], public_key: printed.stdout },
    });
    expect(provisioned.status).toBe(200);
    const client = await HostLineClient.tcp({ host: host!, port: Number(port) });
    const request = async (req: Record<string, unknown>) =>
      JSON.parse((await client.transaction(JSON.stringify(req)))!) as Record<string, unknown>;
    const status = await syncAndWait(cli, request);
    expect(status["status"]).toMatch(/\{sync-end\}/);
    expect((await api(`/devices/${device}/public-key`)).json).toEqual({ uid: device, key: printed.stdout });
    await client.close();
    expect(await cli.stop("SIGTERM")).toBe(0);
  });

  it("--print-key with --no-flash and no seed is a one-line mistake", async () => {
    const run = await runCli(["module", "--dir", dir, "--no-flash", "--print-key"]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/--print-key with --no-flash/);
  });
});
