import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter, parseRateLimits } from "../../hub/auth/RateLimiter.js";
import { hashSecret, newSecret } from "../../hub/auth/secrets.js";
import { createPersonalAccessToken } from "../../hub/bootstrap.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe("tokens, logins, OAuth clients, organizations and descriptions", () => {
  let hub: TestHub;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    clientId = hub.ids.uuid();
    clientSecret = newSecret("cardsim_client");
    await hub.store.credentials.createOAuthClient({
      clientId,
      secretHash: hashSecret(clientSecret),
      projectUid: hub.projectUid,
      role: "developer",
      name: "ci",
      created: hub.clock.now(),
      createdBy: hub.users.owner!,
    });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const form = (fields: Record<string, string>) => ({
    payload: new URLSearchParams(fields).toString(),
    contentType: "application/x-www-form-urlencoded",
    as: null,
  });

  it("stores tokens hashed; expiry, suspension and deletion take effect at once; X-Session-Token works", async () => {
    const { uid, token } = await createPersonalAccessToken(hub.store, hub.ids, hub.clock, {
      userUid: hub.users.developer!,
      name: "short",
      expires: hub.clock.now() + 60_000,
    });
    const stored = await hub.store.credentials.getToken(uid);
    expect(stored!.hash).toBe(hashSecret(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await hub.get(hub.p(), { as: token })).status).toBe(200);
    expect((await hub.get(hub.p(), { as: null, headers: { "x-session-token": token } })).status).toBe(200);
    await hub.store.credentials.setTokenSuspended(uid, true);
    expect((await hub.get(hub.p(), { as: token })).json.err).toMatch(/suspended/);
    await hub.store.credentials.setTokenSuspended(uid, false);
    await hub.clock.advance(60_000);
    expect((await hub.get(hub.p(), { as: token })).json.err).toMatch(/expired/);
    await hub.store.credentials.deleteToken(uid);
    expectErrorBody(await hub.get(hub.p(), { as: token }), 401);
  });

  it("logs in with a password and refuses bad ones", async () => {
    const ok = await hub.post(
      "/auth/login",
      { username: "admin@cardsim.local", password: hub.adminPassword },
      { as: null },
    );
    expect(ok.status).toBe(200);
    expect((await hub.get("/v1/projects", { as: ok.json.session_token })).status).toBe(200);
    expectErrorBody(
      await hub.post("/auth/login", { username: "admin@cardsim.local", password: "nope" }, { as: null }),
      401,
    );
    expectErrorBody(await hub.post("/auth/login", { username: "ghost", password: "x" }, { as: null }), 401);
    expectErrorBody(await hub.post("/auth/login", { username: "admin@cardsim.local" }, { as: null }), 400);
    expectErrorBody(
      await hub.request("POST", "/auth/login", {
        as: null,
        payload: "{oops",
        contentType: "application/json",
      }),
      400,
    );
  });

  it("issues OAuth tokens for client credentials with the RFC 6749 error bodies", async () => {
    const ok = await hub.request(
      "POST",
      "/oauth2/token",
      form({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
    );
    expect(ok.json).toEqual({
      access_token: expect.stringMatching(/^cardsim_oauth_/),
      token_type: "bearer",
      expires_in: 1800,
      scope: "developer",
    });
    expect(ok.headers["cache-control"]).toBe("no-store");
    const token = ok.json.access_token;
    expect((await hub.post(hub.p("/fleets"), { label: "by client" }, { as: token })).status).toBe(201);
    expectErrorBody(await hub.get(`/v1/projects/${hub.otherProjectUid}`, { as: token }), 403);
    expect(
      (await hub.get("/v1/projects", { as: token })).json.projects.map((p: { uid: string }) => p.uid),
    ).toEqual([hub.projectUid]);

    const viewer = await hub.request(
      "POST",
      "/oauth2/token",
      form({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: clientSecret,
        scope: "viewer",
      }),
    );
    expect(viewer.json.scope).toBe("viewer");
    expectErrorBody(await hub.post(hub.p("/fleets"), { label: "no" }, { as: viewer.json.access_token }), 403);

    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString("base64");
    const viaBasic = await hub.request("POST", "/oauth2/token", {
      ...form({ grant_type: "client_credentials" }),
      headers: { authorization: `Basic ${basic}` },
    });
    expect(viaBasic.status).toBe(200);

    const cases: [Record<string, string>, number, string][] = [
      [{ client_id: clientId, client_secret: clientSecret }, 400, "invalid_request"],
      [
        { grant_type: "password", client_id: clientId, client_secret: clientSecret },
        400,
        "unsupported_grant_type",
      ],
      [
        { grant_type: "client_credentials", client_id: "not-a-uuid", client_secret: "x" },
        400,
        "invalid_request",
      ],
      [{ grant_type: "client_credentials", client_id: clientId }, 400, "invalid_request"],
      [
        { grant_type: "client_credentials", client_id: clientId, client_secret: "wrong" },
        401,
        "invalid_client",
      ],
      [
        { grant_type: "client_credentials", client_id: hub.ids.uuid(), client_secret: "x" },
        401,
        "invalid_client",
      ],
      [
        {
          grant_type: "client_credentials",
          client_id: clientId,
          client_secret: clientSecret,
          scope: "owner",
        },
        403,
        "invalid_scope",
      ],
      [
        {
          grant_type: "client_credentials",
          client_id: clientId,
          client_secret: clientSecret,
          scope: "admin",
        },
        403,
        "invalid_scope",
      ],
    ];
    for (const [fields, status, error] of cases) {
      const res = await hub.request("POST", "/oauth2/token", form(fields));
      expect([res.status, res.json.error], JSON.stringify(fields)).toEqual([status, error]);
      expect(typeof res.json.error_description).toBe("string");
    }
    const json = await hub.request("POST", "/oauth2/token", {
      as: null,
      body: { grant_type: "client_credentials" },
    });
    expect([json.status, json.json.error]).toEqual([400, "invalid_request"]);
    const twice = await hub.request("POST", "/oauth2/token", {
      ...form({}),
      payload: "grant_type=client_credentials&grant_type=client_credentials",
    });
    expect(twice.json.error).toBe("invalid_request");

    // The token lives 30 minutes on the hub's clock.
    await hub.clock.advance(30 * 60_000);
    expect((await hub.get(hub.p(), { as: token })).json.err).toMatch(/expired/);
  });

  it("shows organizations, billing accounts and their balance history to members only", async () => {
    const orgs = (await hub.get("/v1/organizations")).json.organizations;
    expect(orgs).toEqual([{ uid: hub.orgUid, name: "Local organization", role: "org_admin" }]);
    expect((await hub.get("/v1/billing-accounts")).json.billing_accounts[0].role).toBe("billing_admin");
    expect((await hub.get("/v1/billing-accounts", { as: "viewer" })).json.billing_accounts[0].role).toBe(
      "billing_member",
    );
    const dev = await hub.device();
    const today = Math.floor(hub.clock.now() / 1000);
    const historyUrl = `/v1/billing-accounts/${hub.orgUid}/balance-history?startDate=${today - 86_400}&endDate=${today}`;
    const before = (await hub.get(`/v1/organizations/${hub.orgUid}`)).json.plan.current_balance;
    const usedBefore = (await hub.get(historyUrl)).json.data.at(-1).total_event_capacity_used;
    for (let i = 0; i < 3; i++) {
      await hub.store.telemetry.addEvent({
        uid: hub.ids.uuid(),
        projectUid: hub.projectUid,
        deviceUid: dev.uid,
        sessionUid: null,
        file: i === 2 ? "_session.qo" : "data.qo",
        received: hub.clock.now() / 1000,
        whenSec: Math.floor(hub.clock.now() / 1000),
        data: {},
      });
    }
    // Session events are platform events: only the two data.qo events are billed.
    const detail = (await hub.get(`/v1/organizations/${hub.orgUid}`)).json;
    expect(detail.plan).toMatchObject({ type: "Essentials", current_balance: before - 2 });
    const history = (await hub.get(historyUrl)).json.data;
    expect(history).toHaveLength(2);
    expect(history.at(-1)).toMatchObject({
      total_event_capacity_used: usedBefore + 2,
      remaining_event_capacity: before - 2,
    });
    expectErrorBody(await hub.get(`/v1/organizations/${hub.orgUid}`, { as: "outsider" }), 403);
    expectErrorBody(await hub.get("/v1/organizations/unknown"), 404);
    expectErrorBody(
      await hub.get(`/v1/billing-accounts/${hub.orgUid}/balance-history?startDate=yesterday`),
      400,
    );
  });

  it("stores descriptions with their Content-Type; only staff write; up to 10 MB", async () => {
    const put = await hub.request("POST", "/v1/description/logo", {
      payload: Buffer.from([0x89, 0x50, 0xff]),
      contentType: "image/png",
    });
    expect(put.json).toMatchObject({ name: "logo", content_type: "image/png", size: 3 });
    const got = await hub.get("/v1/description/logo", { as: "viewer" });
    expect(got.headers["content-type"]).toBe("image/png");
    expect(Buffer.from(got.text, "latin1").length).toBeGreaterThan(0);
    await hub.request("POST", "/v1/description/doc", { payload: '{"a":1}', contentType: "" });
    expect((await hub.get("/v1/description/doc")).headers["content-type"]).toMatch(/^application\/json/);
    expect((await hub.get("/v1/description")).json.descriptions.map((d: { name: string }) => d.name)).toEqual(
      ["doc", "logo"],
    );
    expectErrorBody(
      await hub.request("POST", "/v1/description/x", {
        as: "developer",
        payload: "a",
        contentType: "text/plain",
      }),
      403,
    );
    expectErrorBody(
      await hub.request("POST", "/v1/description/x", { payload: "", contentType: "text/plain" }),
      400,
    );
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
    expectErrorBody(
      await hub.request("POST", "/v1/description/big", {
        payload: big,
        contentType: "application/octet-stream",
      }),
      400,
    );
    expect(
      (
        await hub.request("POST", "/v1/description/max", {
          payload: big.subarray(1),
          contentType: "application/octet-stream",
        })
      ).status,
    ).toBe(200);
    expect((await hub.delete("/v1/description/logo")).status).toBe(204);
    expectErrorBody(await hub.delete("/v1/description/logo"), 404);
    expectErrorBody(await hub.delete("/v1/description/doc", { as: "viewer" }), 403);
  });

  it("creates projects and products for members with the right roles", async () => {
    const made = await hub.post("/v1/projects", { label: "Second", billing_account_uid: hub.orgUid });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ label: "Second", role: "owner", uid: expect.stringMatching(/^app:/) });
    expectErrorBody(
      await hub.post("/v1/projects", { label: "No", billing_account_uid: hub.orgUid }, { as: "viewer" }),
      403,
    );
    expectErrorBody(await hub.post("/v1/projects", { billing_account_uid: hub.orgUid }), 400);
    const product = await hub.post(hub.p("/products"), {
      product_uid: "com.example.acme:sensor",
      label: "Sensor",
    });
    expect(product.json).toMatchObject({
      uid: "product:com.example.acme:sensor",
      disable_devices_by_default: false,
    });
    expectErrorBody(
      await hub.post(hub.p("/products"), { product_uid: "com.example.acme:sensor", label: "Again" }),
      409,
    );
    expectErrorBody(await hub.post(hub.p("/products"), { product_uid: "bad uid", label: "x" }), 400);
    expect((await hub.get("/v1/products/product:com.example.acme:sensor/project")).json.uid).toBe(
      hub.projectUid,
    );
    expect((await hub.get(`/v1/projects/${"product:com.example.acme:sensor"}/devices`)).status).toBe(200);
    const dev = await hub.device({ productUid: "product:com.example.acme:sensor" });
    expectErrorBody(await hub.delete(hub.p("/products/product:com.example.acme:sensor")), 409);
    await hub.delete(hub.p(`/devices/${dev.uid}`));
    expect((await hub.delete(hub.p("/products/product:com.example.acme:sensor"))).status).toBe(204);
    const members = (await hub.get(hub.p("/members"), { as: "viewer" })).json.members;
    expect(members.every((m: { email: string }) => m.email === "")).toBe(true);
  });
});

describe("the rate limiter", () => {
  it("allows N per sliding minute and per day, with an exact Retry-After", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 30));
    const limiter = new RateLimiter(clock, { perMinute: 3, perDay: 5 });
    for (let i = 0; i < 3; i++) expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a")).toEqual({ allowed: false, retryAfterSeconds: 60, window: "minute" });
    expect(limiter.take("b").allowed).toBe(true);
    await clock.advance(59_000);
    expect(limiter.take("a")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await clock.advance(1_000);
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(true);
    await clock.advance(60_000);
    const day = limiter.take("a");
    expect(day).toMatchObject({ allowed: false, window: "day" });
    expect(new RateLimiter(clock, false).take("a").allowed).toBe(true);
  });

  it("parses its command-line form", () => {
    expect(parseRateLimits("off")).toBe(false);
    expect(parseRateLimits("100/min")).toEqual({ perMinute: 100, perDay: 10_200 });
    expect(parseRateLimits("100/min,5000/day")).toEqual({ perMinute: 100, perDay: 5000 });
    expect(() => parseRateLimits("fast")).toThrow(/N\/min/);
  });
});
