import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error: the official client ships no type declarations
import NotehubJs from "@blues-inc/notehub-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { startCli, syncAndWait, type CliProcess } from "../support/cliProcess.js";

const hasSocat = (() => {
  try {
    execFileSync("socat", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("cardsim up", () => {
  let dir: string;
  let cli: CliProcess;
  let credentials: Record<string, string>;
  const pty = () => join(dir, "ttyNOTE");

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(
      `${credentials["hub_url"]}/v1/projects/${credentials["project_uid"]}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${credentials["token"]}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      },
    );
    return { status: response.status, json: (await response.json().catch(() => undefined)) as never };
  };

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
      // Info: the module logs each sync session's end (its first one, before, is not logged).
      "--log-level",
      "info",
      ...(hasSocat ? ["--pty", join(dir, "ttyNOTE")] : []),
    ]);
    await cli.waitFor(/synced with the hub/);
    credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the module on TCP, and its first session provisions it into the hub's project", async () => {
    const [, host, port] = /tcp\s+(\S+):(\d+)/.exec(cli.stdout())!;
    const module = await HostLineClient.tcp({ host: host!, port: Number(port) });
    const version = JSON.parse((await module.transaction('{"req":"card.version"}'))!) as { device: string };
    await module.close();
    const { status, json } = await api("GET", "/devices");
    expect(status).toBe(200);
    expect((json as { devices: unknown[] }).devices).toEqual([
      expect.objectContaining({ uid: version.device, sku: "NOTE-MBNAN" }),
    ]);
    expect(cli.stdout()).toMatch(/synced with the hub: device dev:\d+/);
  });

  it.skipIf(!hasSocat)(
    "a host adds notes over the pty and syncs: the events reach the events API and the official client; a .qi note from the API reaches note.get",
    async () => {
      const host = await HostLineClient.serial(pty());
      try {
        const request = async (req: Record<string, unknown>) => {
          const text = (await host.transaction(JSON.stringify(req), { crc: true }))!;
          const { crc: _crc, ...reply } = JSON.parse(text) as Record<string, unknown>;
          return reply;
        };
        const device = String((await request({ req: "card.version" }))["device"]);
        expect(await request({ req: "note.add", file: "sensors.qo", body: { temp: 21.5 } })).toEqual({
          total: 1,
        });
        expect(await request({ req: "note.add", file: "sensors.qo", body: { temp: 22 } })).toEqual({
          total: 2,
        });
        const status = await syncAndWait(cli, async (req) => {
          const reply = await request(req);
          if (req["req"] === "hub.sync") expect(reply).toEqual({});
          return reply;
        });
        expect(status["status"]).toMatch(/\{sync-end\}/);

        const events = await api("GET", `/events?files=sensors.qo&sortBy=captured&sortOrder=asc`);
        expect(
          (events.json as { events: { body: unknown; device: string }[] }).events.map((e) => e.body),
        ).toEqual([{ temp: 21.5 }, { temp: 22 }]);
        const client = new NotehubJs.ApiClient(credentials["hub_url"]);
        client.authentications.api_key.apiKey = credentials["token"];
        const official = await new NotehubJs.EventApi(client).getProjectEvents(credentials["project_uid"], {
          deviceUID: [device],
          files: "sensors.qo",
        });
        expect(official.events.map((e: { body: unknown }) => e.body)).toEqual(
          expect.arrayContaining([{ temp: 21.5 }, { temp: 22 }]),
        );

        const added = await api("POST", `/devices/${device}/notes/commands.qi`, { body: { led: "on" } });
        expect(added.status).toBe(200);
        expect((await request({ req: "note.get", file: "commands.qi" }))["err"]).toMatch(/noexist/);
        await syncAndWait(cli, request);
        const inbound = await request({ req: "note.get", file: "commands.qi", delete: true });
        expect(inbound).toMatchObject({ body: { led: "on" } });
      } finally {
        await host.close();
      }
    },
  );
});
