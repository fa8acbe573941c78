import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { HOSTED_RATE_LIMITS, parseRateLimits } from "../../hub/auth/RateLimiter.js";
import { FREE_LOGIN_FAILURES } from "../../hub/auth/LoginThrottle.js";
import { buildHubApp } from "../../hub/HubApp.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { describeOnBackends, openTestStore } from "../support/backends.js";
import { describeWithSqliteHalf } from "../support/postgres.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

const hubs: TestHub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) {
    expect(hub.violations).toEqual([]);
    await hub.close();
  }
});

async function hub(options: Parameters<typeof TestHub.start>[0] = {}): Promise<TestHub> {
  const made = await TestHub.start(options);
  hubs.push(made);
  return made;
}

// On PostgreSQL the limits and the throttle are counted in the store (several hub processes share
// them): one hub there answers exactly as one on SQLite, which counts in memory.
describeOnBackends("the local hub's rate limit", (backend) => {
  it("is off by default: a script's 100 calls in a second all succeed", async () => {
    const h = await hub({ backend });
    for (let i = 0; i < 100; i++) expect((await h.get(h.p("/devices"))).status).toBe(200);
  });

  it("emulates the hosted service when asked: 7 a minute per billing account, then 429 with Retry-After", async () => {
    expect(parseRateLimits("hosted")).toEqual({ perMinute: 7, perDay: 10_200 });
    const h = await hub({ rateLimits: HOSTED_RATE_LIMITS, backend });
    for (let i = 0; i < 7; i++) expect((await h.get(h.p("/devices"))).status).toBe(200);
    const limited = await h.get(h.p("/devices"));
    expectErrorBody(limited, 429);
    expect(limited.json.err).toMatch(/at most 7 requests per minute per billing account/);
    await h.clock.advance(Number(limited.headers["retry-after"]) * 1000);
    expect((await h.get(h.p("/devices"))).status).toBe(200);
  });

  it("does not count requests refused for the caller's role or for not being in the project", async () => {
    const h = await hub({ rateLimits: HOSTED_RATE_LIMITS, backend });
    // The viewer may not write environment variables; an outsider is in no role at all.
    for (let i = 0; i < 20; i++) {
      expectErrorBody(
        await h.put(h.p("/environment_variables"), { environment_variables: { a: "1" } }, { as: "viewer" }),
        403,
      );
      expectErrorBody(await h.get(h.p("/devices"), { as: "outsider" }), 403);
    }
    for (let i = 0; i < 7; i++) expect((await h.get(h.p("/devices"))).status).toBe(200);
    expectErrorBody(await h.get(h.p("/devices")), 429);
  });
});

describeOnBackends("logins", (backend) => {
  const login = (h: TestHub, password: string) =>
    h.post("/auth/login", { username: "admin@cardsim.local", password }, { as: null });

  it("are slowed per username after repeated failures, doubling the wait; a success clears it", async () => {
    const h = await hub({ backend });
    for (let i = 0; i < FREE_LOGIN_FAILURES; i++) expectErrorBody(await login(h, "wrong"), 401);
    // The sixth failure makes the username wait 1 s, the next 2 s, ...
    expectErrorBody(await login(h, "wrong"), 401);
    const slowed = await login(h, h.adminPassword);
    expectErrorBody(slowed, 429);
    expect(slowed.json.err).toMatch(/too many failed logins/);
    expect(slowed.headers["retry-after"]).toBe("1");
    await h.clock.advance(1000);
    expectErrorBody(await login(h, "wrong"), 401);
    expect((await login(h, "wrong")).headers["retry-after"]).toBe("2");
    // Another username is not affected.
    expectErrorBody(
      await h.post("/auth/login", { username: "viewer@example.com", password: "x" }, { as: null }),
      401,
    );
    await h.clock.advance(2000);
    expect((await login(h, h.adminPassword)).status).toBe(200);
    expectErrorBody(await login(h, "wrong"), 401);
    expectErrorBody(await login(h, "wrong"), 401);
  });
});

// Backend-free: run with the SQLite half (test/support/postgres.ts).
describeWithSqliteHalf("the hub's log", () => {
  it("has one line per request at debug and none at info", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split("\n"))
          if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    for (const level of ["info", "debug"] as const) {
      lines.length = 0;
      const store = await openTestStore();
      const { app } = await buildHubApp({
        store,
        clock: new FakeClock(),
        rateLimits: false,
        logger: pino({ level }, sink),
      });
      await app.inject({ method: "GET", url: "/v1/projects" });
      await app.inject({ method: "GET", url: "/nowhere" });
      await app.close();
      await store.close();
      if (level === "info") expect(lines).toEqual([]);
      else {
        expect(lines.map((l) => l["msg"])).toEqual([
          expect.stringMatching(/^GET \/v1\/projects 401 [\d.]+ ms$/),
          expect.stringMatching(/^GET \/nowhere 404 [\d.]+ ms$/),
        ]);
      }
    }
  });
});
