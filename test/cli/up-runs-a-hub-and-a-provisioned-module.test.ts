import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { startCli, type CliProcess } from "../support/cliProcess.js";

describe("cardsim up", () => {
  let dir: string;
  let cli: CliProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-up-"));
    cli = startCli([
      "up",
      "--dir",
      dir,
      "--tcp",
      "127.0.0.1:0",
      "--hub-listen",
      "127.0.0.1:0",
      "--hub-tls-listen",
      "off",
      "--hub-rate-limit",
      "off",
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/provisioned in/);
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the module on TCP and lists it as a device of the hub's project", async () => {
    const [, host, port] = /tcp\s+(\S+):(\d+)/.exec(cli.stdout())!;
    const module = await HostLineClient.tcp({ host: host!, port: Number(port) });
    const version = JSON.parse((await module.transaction('{"req":"card.version"}'))!) as { device: string };
    await module.close();

    const credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<
      string,
      string
    >;
    const response = await fetch(
      `${credentials["hub_url"]}/v1/projects/${credentials["project_uid"]}/devices`,
      {
        headers: { authorization: `Bearer ${credentials["token"]}` },
      },
    );
    expect(response.status).toBe(200);
    const { devices } = (await response.json()) as { devices: { uid: string; sku: string }[] };
    expect(devices).toEqual([expect.objectContaining({ uid: version.device, sku: "NOTE-MBNAN" })]);
  });

  it("says plainly that sync between them is not part of this release", () => {
    expect(cli.stdout()).toMatch(/sync is not part of this release/);
  });
});
