import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FREE_LOGIN_FAILURES } from "../../../hub/auth/LoginThrottle.js";
import { bootstrapHub } from "../../../hub/bootstrap.js";
import { buildHubApp } from "../../../hub/HubApp.js";
import { HubIds } from "../../../hub/HubIds.js";
import { PgHubStore } from "../../../hub/store/postgres/PgHubStore.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "../../support/hubProcesses.js";
import { createTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "../../support/postgres.js";

const admin = testPostgresUrl();

interface Answer {
  status: number;
  retryAfter: string | null;
  err: string;
}

/**
 * Two hubs over one PostgreSQL database, each with a store of its own (as two `cardsim hub`
 * processes have), on one fake clock, behind the round-robin proxy: consecutive requests land on
 * alternate hubs. Counted per hub, each would allow twice what one allows; counted in the store
 * they share, the pair allows what one hub alone does, with the same 429 and Retry-After.
 */
describe.skipIf(!admin)("hub processes over one PostgreSQL database behind a round-robin", () => {
  const clock = new FakeClock();
  const hubs: { app: FastifyInstance; store: PgHubStore }[] = [];
  let proxy: RoundRobinProxy;
  let token = "";
  let password = "";
  let projectUid = "";
  let productUid = "";

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const res = await fetch(`${proxy.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = (text === "" ? {} : JSON.parse(text)) as { err?: string; pin?: string };
    return { status: res.status, retryAfter: res.headers.get("retry-after"), err: json.err ?? "", json };
  };
  const asOwner = { authorization: "" };
  const login = (pass: string): Promise<Answer> =>
    call("POST", "/auth/login", {}, { username: "admin@cardsim.local", password: pass });
  /** The hubs the proxy sent the last `n` requests to. */
  const lastTargets = (n: number) => new Set(proxy.forwarded.slice(-n).map((f) => f.target));

  beforeAll(async () => {
    const url = await createTestDatabase(admin!);
    for (let i = 0; i < 2; i++) {
      const store = await PgHubStore.open(url);
      const { app } = await buildHubApp({
        store,
        clock,
        ids: new HubIds(new SeededRandom(i + 1)),
        rateLimits: { perMinute: 4, perDay: 1000 },
      });
      await app.listen({ host: "127.0.0.1", port: 0 });
      hubs.push({ app, store });
    }
    const made = await bootstrapHub(hubs[0]!.store, new HubIds(new SeededRandom(9)), clock);
    ({ token, password } = made);
    projectUid = made.state.project_uid;
    productUid = made.state.product_uid;
    asOwner.authorization = `Bearer ${token}`;
    proxy = await startRoundRobinProxy(
      hubs.map(({ app }) => ({ host: "127.0.0.1", port: (app.server.address() as { port: number }).port })),
    );
  });

  afterAll(async () => {
    await proxy?.close();
    for (const { app, store } of hubs) {
      await app.close();
      await store.close();
    }
  });

  it("allow a billing account its requests a minute once across both, then 429 with Retry-After from either", async () => {
    await clock.advance(3_600_000);
    const path = `/v1/projects/${projectUid}/devices`;
    for (let i = 0; i < 4; i++) expect((await call("GET", path, asOwner)).status).toBe(200);
    expect(lastTargets(4)).toEqual(new Set([0, 1]));
    const refused = [await call("GET", path, asOwner), await call("GET", path, asOwner)];
    expect(lastTargets(2)).toEqual(new Set([0, 1]));
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.err).toMatch(
        /^rate limit exceeded: at most 4 requests per minute per billing account; retry in \d+ s$/,
      );
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
    }
    await clock.advance(Number(refused[1]!.retryAfter) * 1000);
    expect((await call("GET", path, asOwner)).status).toBe(200);
  });

  it("slow password guessing for a username whichever hub checks the guesses", async () => {
    await clock.advance(3_600_000);
    for (let i = 0; i <= FREE_LOGIN_FAILURES; i++) expect((await login("wrong")).status).toBe(401);
    // Three failures on each hub: counted apart, neither would hold the username back yet.
    expect(lastTargets(FREE_LOGIN_FAILURES + 1)).toEqual(new Set([0, 1]));
    for (const pass of ["wrong", password]) {
      const held = await login(pass);
      expect(held).toMatchObject({ status: 429, retryAfter: "1" });
      expect(held.err).toBe("too many failed logins for this username: try again in 1 s");
    }
    await clock.advance(1000);
    expect((await login(password)).status).toBe(200);
    // The success cleared the failures on both hubs.
    for (let i = 0; i < 2; i++) expect((await login("wrong")).status).toBe(401);
  });

  it("slow PIN guessing for a device whichever hub checks the guesses", async () => {
    await clock.advance(3_600_000);
    const device = "dev:864475044204278";
    await hubs[1]!.store.devices.putDevice({ uid: device, projectUid, productUid, provisioned: clock.now() });
    const issued = await call("POST", `/v1/projects/${projectUid}/devices/${device}/pin`, asOwner);
    const pin = issued.json.pin!;
    const wrong = pin === "00000000" ? "11111111" : "00000000";
    const path = `/v1/products/${productUid}/devices/${device}/environment_variables_with_pin`;
    const withPin = (value: string) => call("GET", path, { "x-auth-token": value });
    for (let i = 0; i <= FREE_LOGIN_FAILURES; i++) expect((await withPin(wrong)).status).toBe(401);
    expect(lastTargets(FREE_LOGIN_FAILURES + 1)).toEqual(new Set([0, 1]));
    for (const value of [wrong, pin]) {
      const held = await withPin(value);
      expect(held).toMatchObject({ status: 429, retryAfter: "1" });
      expect(held.err).toBe("too many wrong PINs for this device: try again in 1 s");
    }
    await clock.advance(1000);
    expect((await withPin(pin)).status).toBe(200);
  });
});

if (!admin)
  describe("hub processes over one PostgreSQL database behind a round-robin", () =>
    it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
