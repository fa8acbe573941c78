import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HubApiError, Scenario } from "cardsim/harness";

// A firmware team's test (imports only cardsim/harness; test/package runs it from the packed
// package): the scenario's hub checked and driven through its REST API, in process and on a port.

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

/** A scenario with a hub of its own, a note-c host, and the module's first sync done. */
async function started() {
  sc = await Scenario.start({ seed: "hub-api", hub: "in-process", timeKnown: true });
  const host = sc.attachNoteC();
  const sync = async () => {
    await host.request({ req: "hub.sync" });
    await sc!.run(sc!.module.sync.idle(), { timeout: 600_000 });
  };
  await sync();
  return { sc, hub: sc.hub!, host, sync, device: sc.module.deviceUid };
}

describe("a scenario's hub, through its REST API", () => {
  it("shows the module's notes as events with the API's filters, its errors in the API's shape, on the scenario's clock", async () => {
    const { sc, hub, host, sync, device } = await started();
    await host.request({ req: "note.add", file: "sensors.qo", body: { temp: 21.5 } });
    await host.request({ req: "note.add", file: "alerts.qo", body: { level: 2 } });
    await sync();

    const { events } = await hub.getEvents({ files: "sensors.qo", deviceUID: device });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ device, file: "sensors.qo", body: { temp: 21.5 } });
    // Received on the scenario's clock (2026-01-01 plus the little time the test took).
    expect(Math.floor(events[0]!.received)).toBe(Math.floor(sc.clock.now() / 1000));

    // request: every route, with the same answers as over HTTP.
    const path = `/v1/projects/${hub.projectUid}/events`;
    const all = await hub.request<{ events: { file: string }[] }>("GET", path, undefined, {
      query: { files: "sensors.qo,alerts.qo" },
    });
    expect(all.status).toBe(200);
    expect(all.body.events.map((e) => e.file).sort()).toEqual(["alerts.qo", "sensors.qo"]);
    const bad = await hub.request("GET", `${path}?sortOrder=sideways`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 400,
      status: "Bad Request",
      err: expect.stringContaining("sortOrder"),
    });
    expect((await hub.request("GET", "/v1/nowhere")).status).toBe(404);
    // A helper throws the refusal.
    await expect(hub.getDevice("dev:000000000000000")).rejects.toBeInstanceOf(HubApiError);
    await sc.finish();
  });

  it("sets environment variables at project, fleet and device scope, and the module gets them at its next sync", async () => {
    const { sc, hub, host, sync, device } = await started();
    await hub.setProjectEnvironmentVariables({ unit: "celsius", interval: "600" });
    const fleet = await hub.createFleet({ label: "pumps" });
    await hub.addDeviceToFleets(device, [fleet.uid]);
    await hub.setFleetEnvironmentVariables(fleet.uid, { interval: "300" });
    await hub.setDeviceEnvironmentVariables(device, { interval: "60" });
    expect(await host.request({ req: "env.get", name: "interval" })).toEqual({});
    await sync();
    expect(await host.request({ req: "env.get", names: ["interval", "unit"] })).toMatchObject({
      body: { interval: "60", unit: "celsius" },
    });
    await hub.deleteDeviceEnvironmentVariable(device, "interval");
    await sync();
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "300" });
    await sc.finish();
  });

  it("puts a note into a device's inbound queue, delivered at the next sync", async () => {
    const { sc, hub, host, sync, device } = await started();
    await hub.addQiNote(device, "commands.qi", { body: { valve: "open" } });
    await sync();
    expect(await host.request({ req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { valve: "open" },
    });
    await sc.finish();
  });

  it("takes a firmware image and a DFU request for the device", async () => {
    const { sc, hub, device } = await started();
    const image = new Uint8Array(4096).map((_, i) => i % 251);
    const stored = await hub.uploadFirmware("host", "pump.bin", image, { version: "2.0.0" });
    expect(stored).toMatchObject({ length: 4096, version: "2.0.0" });
    await hub.performDfuAction("host", "update", { deviceUID: device }, { filename: stored.filename });
    expect(await hub.getDeviceDfuStatus(device, "host")).toMatchObject({
      device_uid: device,
      dfu_in_progress: true,
    });
    await sc.finish();
  });

  it("routes the module's events to a server of the test's own", async () => {
    const { sc, hub, host, sync } = await started();
    const received: unknown[] = [];
    const server = createServer((request: IncomingMessage, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString()));
      request.on("end", () => {
        received.push(JSON.parse(text));
        response.end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
      const route = await hub.createRoute({
        label: "ingest",
        type: "http",
        http: { url },
        files: ["sensors.qo"],
      });
      await host.request({ req: "note.add", file: "sensors.qo", body: { temp: 22 } });
      await sync();
      await hub.settle(); // the delivery due now has ended
      expect(received).toMatchObject([{ file: "sensors.qo", body: { temp: 22 } }]);
      const logs = await hub.getRouteLogsByRoute(route.uid);
      expect(logs).toHaveLength(1);
    } finally {
      server.close();
    }
    await sc.finish();
  });

  it("serves the same hub on a loopback port for real HTTP clients, on the scenario's clock", async () => {
    const { sc, hub, host, sync, device } = await started();
    const api = await hub.listen();
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const get = async (path: string) => {
      const response = await fetch(`${api.url}${path}`, {
        headers: { Authorization: `Bearer ${api.token}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const devices = await get(`/v1/projects/${api.projectUid}/devices`);
    expect(devices.status).toBe(200);
    expect((devices.body["devices"] as { uid: string }[]).map((d) => d.uid)).toEqual([device]);
    // What a client changes over HTTP reaches the module like any change on the hub.
    const put = await fetch(
      `${api.url}/v1/projects/${api.projectUid}/devices/${device}/environment_variables`,
      {
        method: "PUT",
        headers: { "X-Session-Token": api.token, "Content-Type": "application/json" },
        body: JSON.stringify({ environment_variables: { interval: "90" } }),
      },
    );
    expect(put.status).toBe(200);
    await sync();
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "90" });
    // The hub's clock is the scenario's: an hour of scenario time later, events carry it.
    await sc.advance(3_600_000);
    await host.request({ req: "note.add", file: "sensors.qo", body: { temp: 23 }, sync: true });
    await sc.run(sc.module.sync.idle(), { timeout: 600_000 });
    const events = await get(`/v1/projects/${api.projectUid}/events?files=sensors.qo`);
    const [event] = events.body["events"] as { received: number }[];
    expect(Math.floor(event!.received)).toBe(Math.floor(sc.clock.now() / 1000));
    await api.close();
    await expect(fetch(`${api.url}/v1/projects/${api.projectUid}/devices`)).rejects.toThrow();
    await sc.finish();
  });
});
