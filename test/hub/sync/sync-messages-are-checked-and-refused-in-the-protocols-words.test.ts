import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHubServices } from "../../../hub/HubServices.js";
import { MAX_ERROR_TEXT } from "../../../protocol/messages.js";
import { ALL_VIAS, SyncFixture } from "./support/syncFixture.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe.each(ALL_VIAS)("sync messages (%s)", (via) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via);
  });
  afterAll(async () => hub.close());

  it("refuses what is not a message of version 1 with {bad-request} or {protocol-version}", async () => {
    const cases: [unknown, string][] = [
      [[1, 2], "bad-request"],
      ["hello", "bad-request"],
      [{ type: "hello" }, "bad-request"],
      [{ v: "1", type: "hello" }, "bad-request"],
      [{ v: 2, type: "hello", device: "dev:1", product: "product:a:b" }, "protocol-version"],
      [{ v: 0, type: "nonsense" }, "protocol-version"],
      [{ v: 1, type: "nonsense" }, "bad-request"],
      [{ v: 1 }, "bad-request"],
      [{ v: 1, type: "hello", device: "not a device", product: hub.productUid }, "bad-request"],
      [{ v: 1, type: "hello", device: "dev:123", product: 7 }, "bad-request"],
      [{ v: 1, type: "open", device: "dev:123", product: hub.productUid }, "bad-request"],
      [{ v: 1, type: "push", token: "t", file: "a.qo", after: 2, through: 1, notes: [] }, "bad-request"],
      [
        { v: 1, type: "push", token: "t", file: "a.qo", after: 0, through: 1, notes: [{ id: "x" }] },
        "bad-request",
      ],
      [{ v: 1, type: "push", token: "t", file: "a.qo", after: 0, through: 1, notes: "x" }, "bad-request"],
      [{ v: 1, type: "pull", token: "t" }, "bad-request"],
      [{ v: 1, type: "pull", token: "t", file: "a.qi", max: 0 }, "bad-request"],
      [{ v: 1, type: "ack", token: "t", file: "a.qi", after: -1, through: 0 }, "bad-request"],
      [{ v: 1, type: "signals", token: "t", after: 0.5 }, "bad-request"],
      [{ v: 1, type: "close", token: "t" }, "bad-request"],
      [{ v: 1, type: "close", token: "t", why: "x", deleted: "a.db" }, "bad-request"],
      [{ v: 1, type: "close", token: "t", why: "x", deleted: [7] }, "bad-request"],
      [{ v: 1, type: "close", token: "t", why: "x", deleted: [""] }, "bad-request"],
    ];
    for (const [message, expected] of cases) {
      const reply = await hub.send(message);
      expect(reply.v, JSON.stringify(message)).toBe(1);
      expect(code(reply), `${JSON.stringify(message)}: ${reply.err}`).toBe(expected);
      expect(reply.err!.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    }
  });

  it("answers a token it does not know with {session-expired}, for every session message", async () => {
    for (const message of [
      { type: "push", token: "nope", file: "a.qo", after: 0, through: 0, notes: [] },
      { type: "pull", token: "nope", file: "a.qi" },
      { type: "ack", token: "nope", file: "a.qi", after: 0, through: 0 },
      { type: "signals", token: "nope", after: 0 },
      { type: "close", token: "nope", why: "x" },
    ]) {
      expect(code(await hub.send({ v: 1, ...message }))).toBe("session-expired");
    }
  });

  it("keeps error texts at 253 characters with the code first", async () => {
    const reply = await hub.send({ v: 1, type: `x${"y".repeat(400)}` });
    expect(reply.err!.startsWith("{bad-request} ")).toBe(true);
    expect(reply.err!.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    const file = `${"f".repeat(120)}.qo`;
    const long = await hub.send({ v: 1, type: "push", token: "t", file, after: 0, through: 0, notes: [] });
    expect(long.err!.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
  });

  it("ends a session after 15 minutes of hub time without a message", async () => {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    await hub.clock.advance(14 * 60_000);
    expect((await module.pull("data.qi")).err).toBeUndefined();
    await hub.clock.advance(15 * 60_000 + 1);
    expect(code(await module.pull("data.qi"))).toBe("session-expired");
    // The expired session is ended in its record at the next sweep.
    await hub.clock.advance(60_000);
    await module.hello();
    const sessions = await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}/sessions`);
    expect(sessions.json.sessions[0].why_session_closed).toBe("session expired");
  });
});

describe("a restarted hub", () => {
  it("knows no session of before: the module opens a new one", async () => {
    const hub = await SyncFixture.start("in process");
    try {
      const module = await hub.module();
      expect((await module.open({ context: { continuous: true } })).err).toBeUndefined();
      expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(true);
      const restarted = createHubServices({ store: hub.store, clock: hub.clock, rateLimits: false });
      const reply = await restarted.sync.handle(
        { v: 1, type: "pull", token: module.token, file: "data.qi" },
        { secure: true },
      );
      expect(code(reply)).toBe("session-expired");
      // Nothing holds the device any more.
      expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(false);
    } finally {
      await hub.close();
    }
  });
});

describe("sync messages, whatever they hold", () => {
  it("are always answered with a reply of version 1 and never thrown", async () => {
    const hub = await SyncFixture.start("in process");
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.record({
              v: fc.constantFrom(1, 2, "1"),
              type: fc.constantFrom("hello", "open", "push", "pull", "ack", "signals", "close", "x"),
              device: fc.constantFrom("dev:1", "dev:", 3),
              product: fc.constantFrom(hub.productUid, "product:x:y", ""),
              token: fc.string(),
              file: fc.constantFrom("a.qo", "b.qi", "c.db", "d.dbx", "_x.qo", "e", ""),
              after: fc.oneof(fc.integer(), fc.double()),
              through: fc.integer(),
              notes: fc.array(fc.jsonValue(), { maxLength: 3 }),
              context: fc.jsonValue(),
              wait: fc.integer(),
            }),
          ),
          async (message) => {
            const reply = await hub.services.sync.handle(message, { secure: true });
            expect(reply.v).toBe(1);
            if (reply.err !== undefined) {
              expect(reply.err).toMatch(/^\{[a-z-]+\} /);
              expect(reply.err.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
              expect(reply.err).not.toMatch(/^\{hub-error\}/);
            }
          },
        ),
        { numRuns: 300, seed: 5 },
      );
    } finally {
      await hub.close();
    }
  });
});
