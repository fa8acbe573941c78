import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectApi, startCli, type CliProcess } from "../support/cliProcess.js";

describe("the hub's activity at the default log level", () => {
  const dirs: string[] = [];
  const processes: CliProcess[] = [];
  let receiver: Server | undefined;
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cardsim-activity-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const p of processes) await p.stop();
    receiver?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("cardsim up prints one line for the module's first session, with its counts", async () => {
    const dir = tempDir();
    const up = startCli([
      "up",
      "--dir",
      dir,
      "--tcp",
      "127.0.0.1:0",
      "--hub-listen",
      "127.0.0.1:0",
      "--hub-tls-listen",
      "off",
      "--log-format",
      "pretty",
    ]);
    processes.push(up);
    const line = (await up.waitForStderr(/^.*INFO.*session dev:\S+ ended: .*$/m))[0];
    expect(line).toMatch(
      /ended: [^,]+, \d+ s, [\d.]+ (B|KiB) up \/ [\d.]+ (B|KiB) down, \d+ notes up \/ \d+ down/,
    );
    expect(up.stderr().match(/session dev:\S+ ended/g)).toHaveLength(1);
  });

  it("cardsim hub prints one line per route delivery, its answer and its time", async () => {
    const dir = tempDir();
    const hub = startCli([
      "hub",
      "--dir",
      dir,
      "--listen",
      "127.0.0.1:0",
      "--tls-listen",
      "off",
      "--log-format",
      "pretty",
    ]);
    processes.push(hub);
    await hub.waitFor(/HTTP API/);
    const credentials = () =>
      JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(503).end("busy"));
    });
    await new Promise<void>((resolve) => receiver!.listen(0, "127.0.0.1", resolve));
    const api = projectApi(credentials);
    const port = (receiver.address() as AddressInfo).port;
    expect(
      (
        await api("/routes", {
          method: "POST",
          body: { label: "r", type: "http", http: { url: `http://127.0.0.1:${port}/` } },
        })
      ).status,
    ).toBe(201);
    const c = credentials();
    const posted = await fetch(
      `${c["hub_url"]}/v1/products/${c["product_uid"]}/devices/dev:000000000000001/webhook-event`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${c["token"]}`, "content-type": "application/json" },
        body: JSON.stringify({ file: "data.qo", body: { n: 1 } }),
      },
    );
    expect(posted.status).toBe(200);
    await hub.waitForStderr(
      /INFO.*delivery route route:\S+ data\.qo of dev:000000000000001 -> FAILED 503: .* in \d+ ms/,
    );
  });
});
