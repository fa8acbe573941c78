import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { connect as connectTls } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type RunningHub } from "../../runtime/startHub.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

/** Sends raw bytes over HTTP/1.1 (HTTPS trusting `ca`) and returns the status code and the body. */
function raw(url: string, request: string, ca?: string): Promise<{ status: number; body: string }> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket =
      protocol === "https:"
        ? connectTls({ host: hostname, port: Number(port), ca, servername: hostname })
        : connect(Number(port), hostname);
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    socket.write(request);
  });
}

function expectShape(body: string, status: number): Record<string, unknown> {
  const json = JSON.parse(body) as Record<string, unknown>;
  expect(json).toMatchObject({ code: status, status: expect.any(String), err: expect.any(String) });
  return json;
}

describe("requests the router and Node's HTTP parser refuse", () => {
  let dir: string;
  let hub: RunningHub;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-refusals-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: "127.0.0.1:0" });
  });

  afterAll(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  const auth = () => ({ authorization: `Bearer ${hub.credentials.token}` });

  it("a path that is not valid percent-encoding: 400 in the hub's shape", async () => {
    const res = await fetch(`${hub.url}/v1/projects/%E0%A4%A/devices`, { headers: auth() });
    expect(res.status).toBe(400);
    const body = expectShape(await res.text(), 400);
    expect(body["err"]).toMatch(/percent-encoding/);
  });

  it("a path parameter over the router's limit: 414 in the hub's shape", async () => {
    const res = await fetch(`${hub.url}/v1/projects/${"a".repeat(2000)}/devices`, { headers: auth() });
    expect(res.status).toBe(414);
    expect(expectShape(await res.text(), 414)["err"]).toMatch(/longer than the 1024 characters/);
  });

  it("headers larger than Node accepts: 431 in the hub's shape, on HTTP and HTTPS alike", async () => {
    const big = `GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`;
    const res = await raw(hub.url, big);
    expect(res.status).toBe(431);
    expect(expectShape(res.body, 431)["err"]).toMatch(/headers are larger/);
    const ca = await readFile(hub.credentials.ca_cert!, "utf8");
    const overTls = await raw(hub.tlsUrl!, big, ca);
    expect(overTls.status).toBe(431);
    expectShape(overTls.body, 431);
  });

  it("a header with characters HTTP does not allow: 400 in the hub's shape", async () => {
    const res = await raw(hub.url, "GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n");
    expect(res.status).toBe(400);
    expect(expectShape(res.body, 400)["err"]).toMatch(/characters HTTP does not allow/);
    const name = await raw(hub.url, "GET /v1/projects HTTP/1.1\r\nHost: x\r\nX Bad: a\r\n\r\n");
    expect(name.status).toBe(400);
    expectShape(name.body, 400);
  });
});

describe("bodies the hub cannot store as sent", () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await TestHub.start();
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("415 names the content type that was sent", async () => {
    const res = await hub.request("PUT", hub.p("/environment_variables"), {
      payload: "<env/>",
      contentType: "application/xml",
    });
    expectErrorBody(res, 415);
    expect(res.json.err).toMatch(/unsupported Content-Type application\/xml: send application\/json/);
  });

  it("a lone surrogate in an environment value or a label is refused with 400, and nothing is stored", async () => {
    const env = await hub.request("PUT", hub.p("/environment_variables"), {
      payload: '{"environment_variables":{"a":"\\ud800x"}}',
      contentType: "application/json",
    });
    expectErrorBody(env, 400);
    expect(env.json.err).toMatch(/lone UTF-16 surrogate/);
    expect((await hub.get(hub.p("/environment_variables"))).json.environment_variables).toEqual({});

    const fleet = await hub.request("POST", hub.p("/fleets"), {
      payload: '{"label":"north\\udc00"}',
      contentType: "application/json",
    });
    expectErrorBody(fleet, 400);
    // A pair is a character like any other.
    const paired = await hub.request("PUT", hub.p("/environment_variables"), {
      payload: '{"environment_variables":{"a":"\\ud83d\\ude00"}}',
      contentType: "application/json",
    });
    expect(paired.status).toBe(200);
    expect((await hub.get(hub.p("/environment_variables"))).json.environment_variables).toEqual({ a: "😀" });
  });
});
