import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { md5Hex } from "../../../core/md5.js";
import { MAX_ERROR_TEXT, WEB_LIMITS } from "../../../protocol/messages.js";
import { UPLOAD_IDLE_MS } from "../../../hub/sync/WebProxy.js";
import { HttpEndpoint } from "../routes/support/servers.js";
import { ALL_VIAS, SyncFixture } from "./support/syncFixture.js";
import type { ScriptedModule } from "./support/ScriptedModule.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * The `web` message on the hub: read field by field, refused in the protocol's words, proxied
 * through the project's proxy route to a real HTTP server on loopback, fragments assembled.
 */
describe.each(ALL_VIAS)("web messages (%s)", (via) => {
  let hub: SyncFixture;
  let endpoint: HttpEndpoint;
  let module: ScriptedModule;

  beforeAll(async () => {
    hub = await SyncFixture.start(via);
    endpoint = await HttpEndpoint.start();
    endpoint.handler = (req, res) => {
      res.setHeader("Content-Type", "text/plain");
      res.end(`${req.method} ${req.url} ${req.body.length}`);
    };
    await hub.services.routing.create(hub.projectUid, {
      label: "api",
      type: "proxy",
      proxy: { alias: "api", url: `${endpoint.url}/v2` },
    });
    module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
  });
  afterAll(async () => {
    await hub.close();
    await endpoint.close();
  });

  const web = (fields: Record<string, unknown>) =>
    module.request({
      type: "web",
      token: module.token,
      route: "api",
      method: "GET",
      seconds: 90,
      max: 8192,
      ...fields,
    });

  it("proxies a request and answers the endpoint's status, content type and body", async () => {
    const reply = await web({ method: "POST", name: "/items?x=1", data: b64(bytesOf('{"a":1}')) });
    expect(reply).toEqual({
      v: 1,
      status: 200,
      content: "text/plain",
      data: b64(bytesOf("POST /v2/items?x=1 7")),
    });
  });

  it("refuses malformed web messages with {bad-request}", async () => {
    const cases: Record<string, unknown>[] = [
      { route: "" },
      { route: 5 },
      { method: "get" },
      { method: "FETCH" },
      { seconds: 0 },
      { seconds: WEB_LIMITS.seconds + 1 },
      { seconds: "90" },
      { max: -1 },
      { max: WEB_LIMITS.answer + 1 },
      { max: 1.5 },
      { data: "not base64!" },
      { md5: "ABC" },
      { md5: md5Hex(bytesOf("x")).toUpperCase() },
      { fragment: { offset: 0, total: 0 } },
      { fragment: { offset: 5, total: 5 } },
      { fragment: { offset: 0, total: WEB_LIMITS.upload + 1 } },
      { fragment: { offset: -1, total: 5 } },
      { fragment: 3 },
      { range: { offset: 0, length: 0 } },
      { range: { offset: 0, length: WEB_LIMITS.answer + 1 } },
      { fragment: { offset: 0, total: 5 }, range: { offset: 0, length: 5 } },
      { name: "x".repeat(WEB_LIMITS.name + 1) },
      { content: 7 },
    ];
    for (const fields of cases) {
      const reply = await web(fields);
      expect(code(reply), `${JSON.stringify(fields)}: ${reply.err}`).toBe("bad-request");
    }
    expect(code(await module.request({ type: "web", route: "api", method: "GET", seconds: 9, max: 1 }))).toBe(
      "bad-request",
    );
  });

  it("answers an unknown token {session-expired}, an unknown alias {web-route}, damaged data {web-payload}", async () => {
    expect(
      code(
        await module.request({ type: "web", token: "nope", route: "api", method: "GET", seconds: 9, max: 9 }),
      ),
    ).toBe("session-expired");
    expect(code(await web({ route: "elsewhere" }))).toBe("web-route");
    expect(code(await web({ method: "PUT", data: b64(bytesOf("abc")), md5: md5Hex(bytesOf("abd")) }))).toBe(
      "web-payload",
    );
  });

  it("holds fragments until the upload is whole, then makes one request", async () => {
    const before = endpoint.received.length;
    const part = (offset: number, text: string, total = 9) =>
      web({ method: "PUT", name: "up", data: b64(bytesOf(text)), fragment: { offset, total } });
    expect(await part(0, "abc")).toEqual({ v: 1, status: 100, received: 3 });
    expect(code(await part(6, "ghi"))).toBe("web-fragment");
    expect(await part(3, "DEF")).toEqual({ v: 1, status: 100, received: 6 });
    // Going back cuts the upload to that offset.
    expect(await part(3, "def")).toEqual({ v: 1, status: 100, received: 6 });
    expect(await part(6, "ghi")).toMatchObject({ status: 200, data: b64(bytesOf("PUT /v2/up 9")) });
    expect(endpoint.received.length - before).toBe(1);
    expect(endpoint.received.at(-1)!.body.toString()).toBe("abcdefghi");
    // The upload is done with: a fragment past 0 is a gap again.
    expect(code(await part(3, "def"))).toBe("web-fragment");
  });
});

describe("uploads the hub holds", () => {
  it("are dropped after 15 idle minutes of hub time, and at most 4 per device are kept", async () => {
    const hub = await SyncFixture.start("in process");
    const endpoint = await HttpEndpoint.start();
    try {
      await hub.services.routing.create(hub.projectUid, {
        label: "api",
        type: "proxy",
        proxy: { alias: "api", url: endpoint.url },
      });
      const module = await hub.module();
      await module.open();
      const part = (name: string, offset: number) =>
        module.request({
          type: "web",
          token: module.token,
          route: "api",
          method: "POST",
          name,
          data: b64(bytesOf("xy")),
          fragment: { offset, total: 10 },
          seconds: 9,
          max: 10,
        });
      for (const name of ["a", "b", "c", "d", "e"]) expect((await part(name, 0)).status).toBe(100);
      // "a" was the least recently continued when "e" began.
      expect(code(await part("a", 2))).toBe("web-fragment");
      expect((await part("e", 2)).received).toBe(4);
      await hub.clock.advance(UPLOAD_IDLE_MS);
      await module.open(); // the session expired too
      const gone = await part("e", 4);
      expect(gone.err).toMatch(
        /^\{web-fragment\} a fragment at offset 4 leaves a gap: the hub holds 0 bytes/,
      );
      expect(endpoint.received).toHaveLength(0);
    } finally {
      await hub.close();
      await endpoint.close();
    }
  });
});

describe("web messages, whatever they hold", () => {
  it("are always answered with a reply of version 1 (a refusal in the protocol's words), never thrown", async () => {
    const hub = await SyncFixture.start("in process");
    const endpoint = await HttpEndpoint.start();
    endpoint.handler = (req, res) => res.end(req.body);
    try {
      await hub.services.routing.create(hub.projectUid, {
        label: "api",
        type: "proxy",
        proxy: {
          alias: "api",
          url: endpoint.url,
          transform: { format: "jsonata", jsonata: "$.a", jsonata_in: "$" },
        },
      });
      const module = await hub.module();
      await module.open();
      const anything = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined));
      // Mostly well-formed messages (so that many reach the endpoint), some fields replaced by anything.
      const wellFormed = fc.record(
        {
          route: fc.constantFrom("api", "api", "api", "other"),
          method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
          name: fc.oneof(fc.constantFrom("/x", "?q=1", "a b", "\u0000", "//", "%zz", "../.."), fc.string()),
          content: fc.constantFrom(
            "application/json",
            "text/plain",
            "application/octet-stream",
            "bad\nheader",
          ),
          data: fc.oneof(
            fc.uint8Array({ maxLength: 64 }).map(b64),
            fc.jsonValue({ maxDepth: 2 }).map((v) => b64(bytesOf(JSON.stringify(v) ?? "null"))),
          ),
          seconds: fc.integer({ min: 1, max: 600 }),
          max: fc.integer({ min: 0, max: 9000 }),
        },
        { requiredKeys: ["route", "method", "seconds", "max"] },
      );
      // Now and then a digest, a fragment or a range.
      const extras = fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        {
          weight: 1,
          arbitrary: fc.record({ md5: fc.constantFrom(md5Hex(new Uint8Array(0)), "0".repeat(32)) }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            fragment: fc.record({
              offset: fc.integer({ min: 0, max: 20 }),
              total: fc.integer({ min: 1, max: 100 }),
            }),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            range: fc.record({
              offset: fc.integer({ min: 0, max: 100 }),
              length: fc.integer({ min: 1, max: 100 }),
            }),
          }),
        },
      );
      const keys = [
        "v",
        "token",
        "route",
        "method",
        "name",
        "content",
        "data",
        "md5",
        "fragment",
        "range",
        "seconds",
        "max",
      ];
      await fc.assert(
        fc.asyncProperty(
          wellFormed,
          extras,
          fc.oneof(
            { weight: 2, arbitrary: fc.constant({}) },
            { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...keys), anything, { maxKeys: 2 }) },
          ),
          fc.constantFrom(module.token, module.token, module.token, "x"),
          async (fields, extra, broken, token) => {
            const message = { v: 1, type: "web", token, ...fields, ...extra, ...broken };
            const reply = await hub.services.sync.handle(message, { secure: true });
            expect(reply.v).toBe(1);
            if (reply.err !== undefined) {
              expect(reply.err).toMatch(/^\{[a-z-]+\} /);
              expect(reply.err.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
              expect(reply.err).not.toMatch(/^\{hub-error\}/);
            } else {
              expect(Number.isInteger(reply["status"])).toBe(true);
            }
          },
        ),
        { numRuns: 400 },
      );
      // The property reached the endpoint, not just the reader.
      expect(endpoint.received.length).toBeGreaterThan(50);
    } finally {
      await hub.close();
      await endpoint.close();
    }
  });
});
