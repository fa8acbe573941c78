import { afterEach, describe, expect, it } from "vitest";
import { md5Hex } from "../../core/md5.js";
import type { JsonObject } from "../../core/json.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { bootTestModule } from "../support/moduleFixture.js";
import { closedPort, HttpEndpoint } from "../hub/routes/support/servers.js";
import { SyncWorld, TRANSPORTS } from "../sync/support/syncWorld.js";
import { base64, echoJson, pattern, putBinary } from "./support/webHost.js";

/** The error a request answers (failing the test when it succeeds). */
async function errorOf(sim: SimulatedModule, request: JsonObject): Promise<string> {
  const reply = await sim.module.request(request);
  if (typeof reply?.["err"] !== "string")
    throw new Error(`${JSON.stringify(request)} answered ${JSON.stringify(reply)}`);
  return reply["err"];
}

describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await world?.close();
    await endpoint?.close();
    world = undefined;
    endpoint = undefined;
  });

  async function start(): Promise<{ world: SyncWorld; endpoint: HttpEndpoint; sim: SimulatedModule }> {
    world = await SyncWorld.start(transport);
    endpoint = await HttpEndpoint.start();
    endpoint.handler = echoJson;
    await world.proxyRoute("api", endpoint.url);
    return { world, endpoint, sim: await world.module() };
  }

  it("a module that is not online answers the real module's text, and sends nothing", async () => {
    const { world, endpoint, sim } = await start();
    // Periodic mode (the factory default), even right after a sync: no session is held.
    await world.sync(sim);
    for (const req of ["web.get", "web.post", "web.put", "web.delete"]) {
      expect(await errorOf(sim, { req, route: "api" })).toBe("web operations require being online (hub.set)");
    }
    expect(await errorOf(sim, { req: "web", method: "GET", route: "api" })).toBe(
      "web operations require being online (hub.set)",
    );
    // Once the mode leaves continuous, the module goes offline again.
    await world.online(sim);
    expect(await world.req(sim, { req: "web.get", route: "api" })).toMatchObject({ result: 200 });
    await world.req(sim, { req: "hub.set", mode: "periodic" });
    // The held session ends when its wait for signals ends (at most 60 s).
    await world.clock.advance(60_000);
    expect(sim.module.sync.isOnline).toBe(false);
    expect(await errorOf(sim, { req: "web.get", route: "api" })).toBe(
      "web operations require being online (hub.set)",
    );
    expect(endpoint.received).toHaveLength(1);
  });

  it("an unknown, disabled or elsewhere-fleeted alias is refused without a request or a log", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    expect(await errorOf(sim, { req: "web.get", route: "Api" })).toBe(
      "web.get: no proxy route with alias Api serves this device (the hub needs an enabled route of type proxy with that alias)",
    );
    const route = (await world.services.routing.list(world.projectUid))[0]!;
    await world.services.routing.update(world.projectUid, route.uid, { disabled: true });
    expect(await errorOf(sim, { req: "web.post", route: "api", body: {} })).toMatch(
      /^web\.post: no proxy route/,
    );
    expect(endpoint.received).toHaveLength(0);
    expect(await world.routeLogs()).toEqual([]);
  });

  it("an answer larger than 8192 bytes (or than max) is {too-big}; the binary buffer takes more", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    endpoint.handler = (_req, res) => res.end(Buffer.from(pattern(8193)));
    expect(await errorOf(sim, { req: "web.get", route: "api" })).toBe(
      "web.get: the answer is larger than the 8192 bytes a reply carries (read it in parts with offset and max, or into the binary buffer with binary:true) {too-big}",
    );
    endpoint.handler = (_req, res) => res.end(Buffer.from(pattern(8192)));
    expect(await world.req(sim, { req: "web.get", route: "api" })).toMatchObject({ result: 200 });
    expect(await errorOf(sim, { req: "web.post", route: "api", max: 100 })).toMatch(
      /^web\.post: the answer is larger than the 100 bytes a reply carries .*\{too-big\}$/,
    );
    expect(await world.req(sim, { req: "web.get", route: "api", binary: true })).toMatchObject({
      result: 200,
      length: 8192,
    });
    endpoint.handler = (_req, res) => res.end(Buffer.from(pattern(8193)));
    expect(await errorOf(sim, { req: "web.put", route: "api", max: 9000, payload: "AA==" })).toMatch(
      /the 8192 bytes a reply carries .*\{too-big\}$/,
    );
  });

  it("no answer within `seconds` is a {timeout} (the clock reaches the timeout only when the test moves it)", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    endpoint.handler = () => undefined; // never answers
    // 90 seconds unless the request says otherwise.
    let settled = false;
    const first = sim.module.request({ req: "web.delete", route: "api" }).finally(() => (settled = true));
    await endpoint.receivedCount(1);
    await world.clock.advance(89_999);
    expect(settled).toBe(false);
    await world.clock.advance(1);
    expect((await first)?.["err"]).toMatch(/within 90000 ms\) \{timeout\}$/);

    const pending = sim.module.request({ req: "web.get", route: "api", name: "slow", seconds: 20 });
    await endpoint.receivedCount(2);
    // Other requests are answered while the web request waits.
    expect(await world.req(sim, { req: "hub.status" })).toMatchObject({ connected: true });
    await world.clock.advance(20_000);
    expect(await pending).toEqual({
      err: "web.get: the route's endpoint did not answer in time (no complete answer within 20000 ms) {timeout}",
    });
    // The route's own, shorter timeout wins.
    const route = (await world.services.routing.list(world.projectUid))[0]!;
    await world.services.routing.update(world.projectUid, route.uid, { proxy: { timeout: 5 } });
    const second = sim.module.request({ req: "web.post", route: "api", body: {} });
    await endpoint.receivedCount(3);
    await world.clock.advance(5000);
    expect((await second)?.["err"]).toMatch(/within 5000 ms\) \{timeout\}$/);
    expect((await world.routeLogs()).map((l) => [l.source, l.status, l.attn])).toEqual([
      ["web proxy", "timeout", true],
      ["web proxy", "timeout", true],
      ["web proxy", "timeout", true],
    ]);
  });

  it("an endpoint that cannot be reached is a clear error, logged", async () => {
    const { world, sim } = await start();
    await world.online(sim);
    await world.proxyRoute("closed", `http://127.0.0.1:${await closedPort()}`);
    expect(await errorOf(sim, { req: "web.get", route: "closed" })).toMatch(
      /^web\.get: the route's endpoint cannot be reached: .*ECONNREFUSED/,
    );
    expect((await world.routeLogs()).map((l) => l.status)).toEqual(["connection failed"]);
  });

  it("refuses body with payload, binary with either, bad base64, a bad status and a payload that does not match it", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    expect(await errorOf(sim, { req: "web.post", route: "api", body: { a: 1 }, payload: "AA==" })).toBe(
      "web.post: body and payload cannot be used together {incompatible}",
    );
    await putBinary(sim, pattern(10));
    expect(await errorOf(sim, { req: "web.put", route: "api", binary: true, body: {} })).toBe(
      "web.put: binary and body cannot be used together {incompatible}",
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", binary: true, payload: "AA==" })).toBe(
      "web.post: binary and payload cannot be used together {incompatible}",
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", payload: "not base64!" })).toBe(
      "web.post: payload is not valid base64",
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", payload: "AA==", status: "abc" })).toBe(
      "web.post: status must be an MD5 digest of 32 hexadecimal characters",
    );
    // The hub checks the bytes against the MD5 the host gave: {web-payload}.
    expect(
      await errorOf(sim, {
        req: "web.post",
        route: "api",
        payload: base64(pattern(5)),
        status: md5Hex(pattern(6)),
      }),
    ).toBe("web.post: the data does not match its MD5 (status) {web-payload}");
    expect(await errorOf(sim, { req: "web.get" })).toBe("web.get: route is required");
    expect(await errorOf(sim, { req: "web", route: "api" })).toBe("web: method is required");
    expect(await errorOf(sim, { req: "web", route: "api", method: "FETCH" })).toMatch(
      /^web: method "FETCH" is not one of GET, PUT, POST/,
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", async: true, file: "out.db" })).toBe(
      "web.post: file must be a local database notefile (.dbx), not out.db",
    );
    expect(endpoint.received).toHaveLength(0);
  });

  it("fragments must continue their upload: a gap, a fragment past total or without bytes is refused", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    const fragment = (offset: number, bytes: Uint8Array, total = 30): JsonObject => ({
      req: "web.post",
      route: "api",
      name: "f",
      payload: base64(bytes),
      offset,
      total,
    });
    // A first fragment that does not start at 0: the hub holds nothing of this upload.
    expect(await errorOf(sim, fragment(10, pattern(10)))).toBe(
      "web.post: a fragment at offset 10 leaves a gap: the hub holds 0 bytes of this upload (continue at offset 0)",
    );
    expect(await world.req(sim, fragment(0, pattern(10)))).toEqual({ result: 100 });
    expect(await errorOf(sim, fragment(20, pattern(10)))).toMatch(
      /offset 20 leaves a gap: the hub holds 10 bytes/,
    );
    expect(await errorOf(sim, fragment(25, pattern(10)))).toBe(
      "web.post: a fragment of 10 bytes at offset 25 ends past total 30",
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", offset: 5 })).toBe(
      "web.post: offset needs total: a fragmented upload gives both",
    );
    expect(await errorOf(sim, { req: "web.post", route: "api", offset: 0, total: 5 })).toBe(
      "web.post: a fragment needs its bytes: payload, or binary:true",
    );
    expect(await errorOf(sim, fragment(0, pattern(10), 10_000_001))).toBe(
      "web.post: total must be 1 to 10000000 bytes, the largest fragmented upload (got 10000001) {too-big}",
    );
    // Another total restarts the upload only at offset 0.
    expect(await errorOf(sim, fragment(10, pattern(10), 40))).toMatch(
      /total 40 is not the 30 of the upload under way/,
    );
    // The refused fragments changed nothing: the upload continues where it stood.
    expect(await world.req(sim, fragment(10, pattern(10)))).toEqual({ result: 100 });
    expect(await world.req(sim, fragment(20, pattern(10)))).toMatchObject({ result: 200 });
    expect(endpoint.received.map((r) => r.body)).toEqual([
      Buffer.concat([Buffer.from(pattern(10)), Buffer.from(pattern(10)), Buffer.from(pattern(10))]),
    ]);
  });

  it("an upload loses no acknowledged fragment when the module loses power, and a repeated fragment is harmless", async () => {
    const { world, endpoint, sim } = await start();
    await world.online(sim);
    const whole = pattern(12_000, 21);
    const send = (offset: number) =>
      world.req(sim, {
        req: "web.post",
        route: "api",
        name: "img",
        payload: base64(whole.subarray(offset, offset + 4000)),
        offset,
        total: whole.length,
      });
    expect((await send(0))["result"]).toBe(100);
    expect((await send(4000))["result"]).toBe(100);
    // The power goes between fragments: the module's RAM (its session) is gone, the hub holds 8000.
    await sim.powerCycle();
    expect(await errorOf(sim, { req: "web.get", route: "api" })).toBe(
      "web operations require being online (hub.set)",
    );
    await world.sync(sim); // continuous mode was kept in flash: the session is held again
    expect(sim.module.sync.isOnline).toBe(true);
    // The host did not see the second reply, so it sends that fragment again: the upload is cut
    // back to its offset and continues.
    expect((await send(4000))["result"]).toBe(100);
    expect(await send(8000)).toMatchObject({ result: 200, body: { bytes: 12_000, md5: md5Hex(whole) } });
    expect(endpoint.received).toHaveLength(1);
  });
});

describe("where web requests exist", () => {
  it("the LoRa module has none, and the satellite module has no binary buffer for them", async () => {
    const lora = await bootTestModule({ variant: "lora" });
    expect(await lora.req({ req: "web.get", route: "api" })).toEqual({
      err: "request not supported for lora {not-supported}",
    });
    const ntn = await bootTestModule({ variant: "ntn" });
    expect(await ntn.req({ req: "web.get", route: "api", binary: true })).toEqual({
      err: "binary is not supported for ntn {not-supported}",
    });
    expect(await ntn.req({ req: "web.get", route: "api" })).toEqual({
      err: "web operations require being online (hub.set)",
    });
  });
});
