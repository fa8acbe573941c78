import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type RunningHub } from "../../runtime/startHub.js";
import { HttpEndpoint } from "../hub/routes/support/servers.js";

/**
 * The console's "Test with a sample event": the sample goes through the route tested and nowhere
 * else. It is not an event of the project (the events API and every other route never see it),
 * the route's log keeps the attempt with source `test`, and the answer is the endpoint's.
 */
describe("the console's route test", () => {
  let dir: string;
  let hub: RunningHub;
  let tested: HttpEndpoint;
  let other: HttpEndpoint;
  let project: string;
  const auth = () => ({
    authorization: `Bearer ${hub.credentials.token}`,
    "content-type": "application/json",
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: auth(),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const route = async (label: string, url: string) =>
    (await call("POST", `/v1/projects/${project}/routes`, { label, type: "http", http: { url } })).json[
      "uid"
    ] as string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-route-test-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, database: "memory" });
    project = hub.credentials.project_uid;
    tested = await HttpEndpoint.start();
    other = await HttpEndpoint.start();
  });
  afterAll(async () => {
    await hub?.close();
    await tested?.close();
    await other?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("posts the sample to the tested route's endpoint only, logs it as a test, and stores no event", async () => {
    const uid = await route("tested", `${tested.url}/in`);
    await route("other", `${other.url}/in`);
    tested.handler = (_req, res) => res.end("thanks, got it");
    const answer = await call("POST", `/console/api/projects/${project}/routes/${uid}/test`, {
      device: "dev:000000000000001",
      file: "data.qo",
      body: { test: true },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: "200", text: "thanks, got it", source: "test", attn: false });
    expect(tested.received).toHaveLength(1);
    expect(tested.received[0]!.json).toMatchObject({
      device: "dev:000000000000001",
      file: "data.qo",
      body: { test: true },
      event: answer.json["event_uid"],
    });
    // Nothing stored as an event, so nothing else routed it.
    await hub.services.routing.settle();
    expect(other.received).toHaveLength(0);
    const events = await call("GET", `/v1/projects/${project}/events`);
    expect(events.json["events"] ?? []).toEqual([]);
    expect(await hub.store.devices.getDevice("dev:000000000000001")).toBeUndefined();
    const logs = await call("GET", `/v1/projects/${project}/routes/${uid}/route-logs`);
    expect(logs.json).toEqual([expect.objectContaining({ source: "test", status: "200" })]);
  });

  it("answers a bad sample, an unknown route and a failing endpoint with the hub's own error text", async () => {
    const uid = await route("failing", `${tested.url}/fails`);
    const path = `/console/api/projects/${project}/routes/${uid}/test`;
    const bad = await call("POST", path, { device: "not a device", file: "data.qo" });
    expect(bad).toMatchObject({ status: 400, json: { err: expect.stringMatching(/is not a DeviceUID/) } });
    const badFile = await call("POST", path, { device: "dev:000000000000001", file: "no extension" });
    expect(badFile.json["err"]).toMatch(/file is not a notefile name/);
    const missing = await call("POST", `/console/api/projects/${project}/routes/route:0000/test`, {
      device: "dev:000000000000001",
      file: "data.qo",
    });
    expect(missing.status).toBe(404);
    tested.handler = (_req, res) => {
      res.statusCode = 503;
      res.end("down for maintenance");
    };
    const failed = await call("POST", path, { device: "dev:000000000000001", file: "data.qo", body: {} });
    expect(failed.json).toMatchObject({ status: "503", attn: true, text: "down for maintenance" });
    // A failed test is not retried: it was no delivery.
    await hub.services.routing.settle();
    expect(hub.services.routing.pending().size).toBe(0);
  });
});
