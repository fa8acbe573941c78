import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import type { WebRequest, WebResponse } from "../../../hub/routing/RoutingService.js";
import { SyncRefusal } from "../../../hub/sync/SyncRefusal.js";
import { MAX_HELD_UPLOAD_BYTES, UPLOADS_PER_DEVICE, WebProxy } from "../../../hub/sync/WebProxy.js";
import { WEB_LIMITS, type WebRequestMessage } from "../../../protocol/messages.js";
import { HttpEndpoint } from "../routes/support/servers.js";
import { SyncFixture } from "./support/syncFixture.js";

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe("a web message's data", () => {
  it("holds at most an upload's 10 MB; more is refused {bad-request} and never sent", async () => {
    // In process (as `cardsim up` links its module): no HTTP body limit stands in front.
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
      const web = (data: string) =>
        module.request({
          type: "web",
          token: module.token,
          route: "api",
          method: "PUT",
          seconds: 9,
          max: 9,
          data,
        });
      const over = await web(b64(new Uint8Array(WEB_LIMITS.upload + 1)));
      expect(over.err).toBe(
        `{bad-request} data may hold at most ${WEB_LIMITS.upload} bytes (a larger body is not sent)`,
      );
      // Text longer than any upload's base64 is not even decoded.
      expect(code(await web("A".repeat(Math.ceil(WEB_LIMITS.upload / 3) * 4 + 4)))).toBe("bad-request");
      expect(endpoint.received).toHaveLength(0);
      expect((await web(b64(new Uint8Array(WEB_LIMITS.upload)))).status).toBe(200);
      expect(endpoint.received.at(-1)!.body.length).toBe(WEB_LIMITS.upload);
    } finally {
      await hub.close();
      await endpoint.close();
    }
  });
});

describe("the uploads the hub holds", () => {
  /** A proxy whose endpoint answers 200 at once, with what it was sent. */
  function proxy(heldBytes: number) {
    const sent: WebRequest[] = [];
    const routing = {
      webRequest: (req: WebRequest): Promise<WebResponse> => {
        sent.push(req);
        return Promise.resolve({
          status: 200,
          headers: {},
          body: new Uint8Array(0),
          truncated: false,
          url: "",
          routeUid: "",
        });
      },
    };
    const clock = new FakeClock();
    return { web: new WebProxy(routing, clock, { heldBytes }), sent, clock };
  }
  const fragment = (name: string, offset: number, total: number, size: number): WebRequestMessage => ({
    v: 1,
    type: "web",
    token: "t",
    route: "api",
    method: "PUT",
    name,
    seconds: 9,
    max: 0,
    data: b64(new Uint8Array(size).fill(name.charCodeAt(0))),
    fragment: { offset, total },
  });
  const device = (n: number) => ({ deviceUid: `dev:${100 + n}`, projectUid: "app:p" });

  it("take at most the hub's budget of bytes, all devices together; the stalest go first", async () => {
    const budget = 10_000;
    const { web, sent } = proxy(budget);
    // Five devices start 6,000-byte uploads with 2,000 bytes each: the budget is taken.
    for (let n = 0; n < 5; n++) {
      expect(await web.handle(device(n), fragment(`u${n}`, 0, 6_000, 2_000))).toMatchObject({ status: 100 });
    }
    expect(web.heldBytes).toBe(budget);
    // Each sends the rest. Room for u0's is made by dropping the least recently continued others.
    for (let n = 0; n < 5; n++) {
      const reply = web.handle(device(n), fragment(`u${n}`, 2_000, 6_000, 4_000));
      if (n === 1 || n === 2) {
        await expect(reply).rejects.toThrow(
          /^\{web-fragment\} a fragment at offset 2000 leaves a gap: the hub holds 0 bytes/,
        );
        await expect(reply).rejects.toBeInstanceOf(SyncRefusal);
      } else {
        expect(await reply).toMatchObject({ status: 200 });
      }
      expect(web.heldBytes).toBeLessThanOrEqual(budget);
    }
    expect(sent.map((r) => [r.name, r.body?.length])).toEqual([
      ["u0", 6_000],
      ["u3", 6_000],
      ["u4", 6_000],
    ]);
    // Every upload done with or dropped: nothing held.
    expect(web.uploads).toBe(0);
    expect(web.heldBytes).toBe(0);
  });

  it("count what they let go of: restarted, dropped per device and idle uploads free their bytes", async () => {
    const { web, clock } = proxy(1_000_000);
    await web.handle(device(0), fragment("a", 0, 5_000, 2_000));
    expect(web.heldBytes).toBe(2_000);
    // Another total at offset 0 starts the upload again.
    await web.handle(device(0), fragment("a", 0, 3_000, 1_000));
    expect(web.heldBytes).toBe(1_000);
    // A fifth upload of the device drops its stalest ("a").
    for (const name of ["b", "c", "d", "e"]) await web.handle(device(0), fragment(name, 0, 3_000, 1_000));
    expect(web.uploads).toBe(UPLOADS_PER_DEVICE);
    expect(web.heldBytes).toBe(UPLOADS_PER_DEVICE * 1_000);
    await clock.advance(15 * 60_000);
    await web.handle(device(1), fragment("z", 0, 3_000, 1_000));
    expect(web.uploads).toBe(1);
    expect(web.heldBytes).toBe(1_000);
  });

  it("have a budget of 64 MiB by default", () => {
    expect(MAX_HELD_UPLOAD_BYTES).toBe(64 * 1024 * 1024);
    expect(
      new WebProxy({ webRequest: () => Promise.reject(new Error("unused")) }, new FakeClock()).heldBytes,
    ).toBe(0);
  });
});
