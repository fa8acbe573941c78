import { afterEach, describe, expect, it } from "vitest";
import { md5Hex } from "../../core/md5.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { HttpEndpoint } from "../hub/routes/support/servers.js";
import { SyncWorld, TRANSPORTS } from "../sync/support/syncWorld.js";
import { base64, echoJson, getBinary, pattern, putBinary, serveBytes } from "./support/webHost.js";

/**
 * A module's web.* requests end to end: the module (continuous mode, its session held open) sends
 * the `web` message, the hub proxies it through a proxy route to a real HTTP server on loopback
 * that the test started, and the answer comes back as the real module's reply. The hub and the
 * module share one fake clock; the HTTP exchanges are real. In process and over HTTPS alike.
 */
describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await world?.close();
    await endpoint?.close();
    world = undefined;
    endpoint = undefined;
  });

  async function online(): Promise<{ world: SyncWorld; endpoint: HttpEndpoint; sim: SimulatedModule }> {
    world = await SyncWorld.start(transport);
    endpoint = await HttpEndpoint.start();
    endpoint.handler = echoJson;
    const sim = await world.module();
    await world.online(sim);
    return { world, endpoint, sim };
  }

  it("web.get, web.post, web.put, web.delete and web reach the route's URL with the name appended, each logged as a web proxy request", async () => {
    const { world, endpoint, sim } = await online();
    const route = await world.proxyRoute("sensors", `${endpoint.url}/api/`, {
      http_headers: { "X-Api-Key": "k-1" },
    });

    expect(await world.req(sim, { req: "web.get", route: "sensors", name: "/latest?id=1" })).toMatchObject({
      result: 200,
      body: { method: "GET", url: "/api/latest?id=1", bytes: 0, type: null },
    });
    expect(
      await world.req(sim, { req: "web.post", route: "sensors", name: "readings", body: { temp: 21.5 } }),
    ).toMatchObject({
      result: 200,
      body: { method: "POST", url: "/api/readings", type: "application/json", json: { temp: 21.5 } },
    });
    const bytes = pattern(300);
    expect(
      await world.req(sim, {
        req: "web.put",
        route: "sensors",
        name: "blob/1",
        payload: base64(bytes),
        content: "application/octet-stream",
      }),
    ).toMatchObject({
      result: 200,
      body: { method: "PUT", url: "/api/blob/1", type: "application/octet-stream", md5: md5Hex(bytes) },
    });
    expect(await world.req(sim, { req: "web.delete", route: "sensors", name: "readings/7" })).toMatchObject({
      result: 200,
      body: { method: "DELETE", url: "/api/readings/7", bytes: 0 },
    });
    expect(
      await world.req(sim, { req: "web", method: "PATCH", route: "sensors", name: "x", body: { on: true } }),
    ).toMatchObject({ result: 200, body: { method: "PATCH", url: "/api/x", json: { on: true } } });

    expect(endpoint.received.map((r) => r.headers["x-api-key"])).toEqual(Array(5).fill("k-1"));
    const logs = await world.routeLogs();
    expect(logs.map((l) => [l.source, l.routeUid, l.status, l.deviceUid])).toEqual(
      Array(5).fill(["web proxy", route.uid, "200", sim.module.deviceUid]),
    );
    expect(logs.map((l) => new URL(l.url).pathname)).toEqual([
      "/api/latest",
      "/api/readings",
      "/api/blob/1",
      "/api/readings/7",
      "/api/x",
    ]);
  });

  it("answers a non-JSON body as payload with its MD5, statuses as they come, and counts the bytes in the session", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("files", endpoint.url);
    const answer = pattern(1000, 3);
    endpoint.handler = (req, res) => {
      if (req.url === "/missing") {
        res.statusCode = 404;
        res.end();
      } else serveBytes(answer)(req, res);
    };
    expect(await world.req(sim, { req: "web.post", route: "files", name: "f", body: {} })).toEqual({
      result: 200,
      payload: base64(answer),
      status: md5Hex(answer),
    });
    // web.get has no `status` member in its reply (the public schema's reply).
    expect(await world.req(sim, { req: "web.get", route: "files", name: "f" })).toEqual({
      result: 200,
      payload: base64(answer),
    });
    expect(await world.req(sim, { req: "web.get", route: "files", name: "missing" })).toEqual({
      result: 404,
    });
    // The session the requests rode on counted them.
    const usage = await world.req(sim, { req: "card.usage.get" });
    expect(Number(usage["bytes_received"])).toBeGreaterThan(2 * 1000);
  });

  it("sends the binary buffer with web.post binary:true and fills it from web.get binary:true", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("bin", endpoint.url);
    const upload = pattern(20_000, 11);
    await putBinary(sim, upload);
    expect(
      await world.req(sim, {
        req: "web.post",
        route: "bin",
        name: "up",
        binary: true,
        content: "application/octet-stream",
      }),
    ).toMatchObject({ result: 200, body: { bytes: 20_000, md5: md5Hex(upload) } });

    const resource = pattern(50_000, 5);
    endpoint.handler = serveBytes(resource);
    const got = await world.req(sim, { req: "web.get", route: "bin", name: "down", binary: true });
    expect(got).toMatchObject({ result: 200, length: 50_000 });
    expect(got["cobs"]).toBeGreaterThan(50_000);
    const read = await getBinary(sim);
    expect(read.bytes).toEqual(resource);
    expect(read.reply.status).toBe(md5Hex(resource));
  });

  it("reads a large resource into the binary buffer in parts with offset and max, ranges or not", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("bin", endpoint.url);
    const resource = pattern(30_000, 9);
    for (const ranges of [true, false]) {
      endpoint.handler = serveBytes(resource, { ranges });
      const parts: Uint8Array[] = [];
      for (let offset = 0; offset < resource.length; offset += 8000) {
        const got = await world.req(sim, {
          req: "web.get",
          route: "bin",
          name: "fw.bin",
          binary: true,
          offset,
          max: 8000,
        });
        expect(got).toMatchObject({
          result: ranges ? 206 : 200,
          length: Math.min(8000, resource.length - offset),
        });
        parts.push((await getBinary(sim)).bytes);
      }
      expect(Buffer.concat(parts)).toEqual(Buffer.from(resource));
    }
    expect(endpoint.received.slice(0, 4).map((r) => r.headers.range)).toEqual([
      "bytes=0-7999",
      "bytes=8000-15999",
      "bytes=16000-23999",
      "bytes=24000-31999",
    ]);
  });

  it("uploads in fragments with offset and total: 100 for each but the last, one request with the whole body", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("upload", endpoint.url);
    const whole = pattern(9000, 13);
    const replies = [];
    for (let offset = 0; offset < whole.length; offset += 4000) {
      const part = whole.subarray(offset, offset + 4000);
      replies.push(
        await world.req(sim, {
          req: "web.post",
          route: "upload",
          name: "image",
          content: "application/octet-stream",
          payload: base64(part),
          offset,
          total: whole.length,
          status: md5Hex(part),
          verify: true,
        }),
      );
    }
    expect(replies.map((r) => r["result"])).toEqual([100, 100, 200]);
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.received[0]!.body).toEqual(Buffer.from(whole));
    expect(replies[2]).toMatchObject({ body: { bytes: 9000, md5: md5Hex(whole) } });
    // Only the request that reached the network is logged.
    expect((await world.routeLogs()).map((l) => [l.source, l.status])).toEqual([["web proxy", "200"]]);
  });

  it("uploads the binary buffer in fragments (web.put binary:true with offset and total)", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("upload", endpoint.url);
    const whole = pattern(150_000, 17);
    const chunk = 60_000;
    const results = [];
    for (let offset = 0; offset < whole.length; offset += chunk) {
      const part = whole.subarray(offset, offset + chunk);
      await putBinary(sim, part);
      const reply = await world.req(sim, {
        req: "web.put",
        route: "upload",
        binary: true,
        offset,
        total: whole.length,
        verify: true,
      });
      results.push(reply["result"]);
      await world.req(sim, { req: "card.binary", delete: true });
    }
    expect(results).toEqual([100, 100, 200]);
    expect(endpoint.received.map((r) => [r.method, r.body.length])).toEqual([["PUT", 150_000]]);
    expect(md5Hex(new Uint8Array(endpoint.received[0]!.body))).toBe(md5Hex(whole));
  });

  it("async:true answers at once and keeps the answer in the named .dbx note", async () => {
    const { world, endpoint, sim } = await online();
    await world.proxyRoute("slow", endpoint.url);
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    endpoint.handler = async (req, res) => {
      await answered;
      echoJson(req, res);
    };
    expect(
      await world.req(sim, {
        req: "web.post",
        route: "slow",
        name: "job",
        body: { n: 1 },
        async: true,
        file: "answers.dbx",
        note: "job1",
      }),
    ).toEqual({});
    // The module answers other requests while the web request is under way.
    await endpoint.receivedCount(1);
    expect(await world.req(sim, { req: "card.version" })).toHaveProperty("version");
    expect(sim.module.web.pending).toBe(1);
    release();
    await sim.module.web.idle();
    expect(await world.req(sim, { req: "note.get", file: "answers.dbx", note: "job1" })).toMatchObject({
      body: { result: 200, body: { method: "POST", url: "/job", json: { n: 1 } } },
    });

    // A failure is kept too, as the error the host would have had.
    expect(
      await world.req(sim, {
        req: "web.delete",
        route: "nowhere",
        async: true,
        file: "answers.dbx",
        note: "job2",
      }),
    ).toEqual({});
    await sim.module.web.idle();
    const failed = await world.req(sim, { req: "note.get", file: "answers.dbx", note: "job2" });
    expect(String((failed["body"] as { err: string }).err)).toMatch(
      /^web\.delete: no proxy route with alias nowhere/,
    );
    // A non-JSON answer is the note's payload, its MD5 in the body.
    endpoint.handler = serveBytes(pattern(500, 2));
    await world.req(sim, {
      req: "web.put",
      route: "slow",
      payload: "AAEC",
      async: true,
      file: "answers.dbx",
      note: "job3",
    });
    await sim.module.web.idle();
    expect(await world.req(sim, { req: "note.get", file: "answers.dbx", note: "job3" })).toMatchObject({
      body: { result: 200, status: md5Hex(pattern(500, 2)) },
      payload: base64(pattern(500, 2)),
    });
  });
});

describe("over https, a link with a short timeout of its own", () => {
  it("waits for a web reply as long as the request's seconds, not just its own timeout", async () => {
    const world = await SyncWorld.start("https");
    const endpoint = await HttpEndpoint.start();
    try {
      await world.proxyRoute("slow", endpoint.url);
      // The endpoint answers after 600 ms of real time; the link alone would give up after 150.
      endpoint.handler = (req, res) => void setTimeout(() => echoJson(req, res), 600);
      const sim = await world.module({ linkTimeoutMs: 150 });
      await world.online(sim);
      expect(await world.req(sim, { req: "web.get", route: "slow", seconds: 30 })).toMatchObject({
        result: 200,
        body: { method: "GET" },
      });
    } finally {
      await world.close();
      await endpoint.close();
    }
  });
});
