import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, HubApiError, startHub, startLocal } from "cardsim";

// The same REST API as a scenario's hub (runtime/HubApi.ts) on the hubs of the package's main entry.

let dir: string | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = close = undefined;
});

describe("a hub of the main entry", () => {
  it("startLocal's hub: the module's events and device through request and the helpers, as its owner", async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-hubapi-"));
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const local = await startLocal({
      dir,
      clock,
      hub: { listen: "127.0.0.1:0", tlsListen: false },
      module: { seed: "local", tcp: false },
    });
    close = () => local.close();
    const device = local.module.module.deviceUid;
    const { devices } = await local.hub.getDevices();
    expect(devices.map((d) => d["uid"])).toEqual([device]);
    const { events } = await local.hub.getEvents({ files: "_session.qo" });
    expect(events[0]).toMatchObject({ device, file: "_session.qo" });
    const bad = await local.hub.request("GET", `/v1/projects/${local.hub.projectUid}/devices/dev:1`);
    expect(bad.status).toBe(404);
    await expect(local.hub.getDevice("dev:1")).rejects.toBeInstanceOf(HubApiError);
  });

  it("startHub's hub: listen() gives the URL it serves and its owner's token, for real HTTP clients", async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-hubapi-"));
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false });
    close = () => hub.close();
    await hub.setProjectEnvironmentVariables({ unit: "C" });
    const api = await hub.listen();
    expect(api.url).toBe(hub.url);
    expect(api.token).toBe(hub.credentials.token);
    const response = await fetch(`${api.url}/v1/projects/${api.projectUid}/environment_variables`, {
      headers: { Authorization: `Bearer ${api.token}` },
    });
    expect(await response.json()).toEqual({ environment_variables: { unit: "C" } });
  });
});
