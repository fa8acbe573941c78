import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../hub/integrations/SecretBox.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";
import { HttpEndpoint } from "./routes/support/servers.js";

describe("project secrets", () => {
  let hub: TestHub;
  let endpoint: HttpEndpoint;
  const secrets = (suffix = "") => hub.p(`/secrets${suffix}`);

  beforeAll(async () => {
    hub = await TestHub.start();
    endpoint = await HttpEndpoint.start();
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  it("are created once, listed by name and dates, replaced and deleted, and their values never come back", async () => {
    const created = await hub.post(secrets(), { name: "API_KEY", value: "s3cr3t-one" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      name: "API_KEY",
      created: "2026-01-01T00:00:00Z",
      created_by: "admin@cardsim.local",
    });
    expectErrorBody(await hub.post(secrets(), { name: "API_KEY", value: "again" }), 409);
    await hub.clock.advance(5000);
    const updated = await hub.put(secrets("/API_KEY"), { value: "s3cr3t-two" }, { as: "developer" });
    expect(updated.json).toMatchObject({
      name: "API_KEY",
      modified: "2026-01-01T00:00:05Z",
      modified_by: "developer@example.com",
    });
    const listed = await hub.get(secrets(), { as: "viewer" });
    expect(listed.json.secrets).toHaveLength(1);
    expect(listed.text).not.toContain("s3cr3t");
    expectErrorBody(await hub.put(secrets("/NOPE"), { value: "x" }), 404);
    expect((await hub.delete(secrets("/API_KEY"))).status).toBe(204);
    expectErrorBody(await hub.delete(secrets("/API_KEY")), 404);
    expect((await hub.get(secrets())).json).toEqual({ secrets: [] });
  });

  it("refuse names that are not letters, digits and underscores, and a missing value", async () => {
    expect((await hub.post(secrets(), { name: "bad-name", value: "v" })).json.err).toMatch(
      /name must be 1 to 128 letters, digits or underscores/,
    );
    expect((await hub.post(secrets(), { name: "OK" })).json.err).toMatch(/value is required/);
    expectErrorBody(await hub.post(secrets(), { name: "OK", value: "v" }, { as: "viewer" }), 403);
  });

  it("are stored sealed under the hub's key, bound to their project and name", async () => {
    await hub.post(secrets(), { name: "SEALED", value: "plain-value" });
    const sealed = (await hub.store.integrations.getSecretCiphertext(hub.projectUid, "SEALED"))!;
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain("plain-value");
    const box = hub.services.integrations.box;
    expect(box.open(hub.projectUid, "SEALED", sealed)).toBe("plain-value");
    expect(box.open(hub.projectUid, "OTHER", sealed)).toBeUndefined();
    expect(new SecretBox(new Uint8Array(32)).open(hub.projectUid, "SEALED", sealed)).toBeUndefined();
  });

  it("are put into a route's header values where it names them, and the route's record keeps the reference", async () => {
    await hub.post(secrets(), { name: "TOKEN", value: "tok-42" });
    const route = await hub.post(hub.p("/routes"), {
      label: "with a secret",
      type: "http",
      http: {
        url: `${endpoint.url}/in`,
        http_headers: { Authorization: "Bearer {{secret.TOKEN}}", "X-Unknown": "{{secret.NONE}}" },
      },
    });
    expect(route.status).toBe(201);
    const device = await hub.device();
    await hub.services.events.record({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      file: "data.qo",
      data: { req: "note.add", body: { n: 1 } },
    });
    await hub.services.routing.settle();
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.received[0]!.headers.authorization).toBe("Bearer tok-42");
    expect(endpoint.received[0]!.headers["x-unknown"]).toBe("{{secret.NONE}}");
    expect((await hub.get(hub.p(`/routes/${route.json.uid}`))).text).not.toContain("tok-42");
  });
});

describe("the global event transformation", () => {
  let hub: TestHub;
  const G = () => hub.p("/global-transformation");
  const record = async (body: Record<string, unknown>) => {
    const device = await hub.device();
    return hub.services.events.record({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      file: "data.qo",
      data: { req: "note.add", body },
    });
  };

  beforeAll(async () => {
    hub = await TestHub.start();
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("is set as text, applied to every event before it is stored once enabled, and not after it is disabled", async () => {
    const expression =
      "$merge([$, {'body': $merge([body, {'celsius': body.f ? (body.f - 32) / 1.8 : 0}]), 'file': 'forged.qo'}])";
    const set = await hub.request("POST", G(), { payload: expression, contentType: "text/plain" });
    expect(set.status).toBe(200);
    // Set, not yet enabled: events are stored as they come.
    expect((await record({ f: 212 })).data.body).toEqual({ f: 212 });
    expect((await hub.post(`${G()}/enable`)).status).toBe(200);
    const changed = await record({ f: 212 });
    expect(changed.data.body).toEqual({ f: 212, celsius: 100 });
    // Whose event it is and where it came from stay the hub's.
    expect(changed.file).toBe("data.qo");
    const stored = (await hub.get(hub.p(`/events?files=data.qo`))).json.events;
    expect(stored.some((e: { body: { celsius?: number } }) => e.body.celsius === 100)).toBe(true);
    expect((await hub.post(`${G()}/disable`)).status).toBe(200);
    expect((await record({ f: 50 })).data.body).toEqual({ f: 50 });
  });

  it("keeps an event as it came when the expression fails on it", async () => {
    await hub.request("POST", G(), { payload: "$error('nope')", contentType: "text/plain" });
    await hub.post(`${G()}/enable`);
    expect((await record({ kept: true })).data.body).toEqual({ kept: true });
    await hub.post(`${G()}/disable`);
  });

  it("refuses an expression that is not JSONata or is empty, and callers below developer", async () => {
    const bad = await hub.request("POST", G(), { payload: "{'a': ", contentType: "text/plain" });
    expectErrorBody(bad, 400);
    expect(bad.json.err).toMatch(/is not a JSONata expression/);
    expectErrorBody(await hub.request("POST", G(), { payload: "  ", contentType: "text/plain" }), 400);
    expectErrorBody(await hub.post(`${G()}/enable`, undefined, { as: "viewer" }), 403);
    // A JSON string is read as the expression (the older official client sends one).
    const json = await hub.request("POST", G(), {
      payload: JSON.stringify("$"),
      contentType: "application/json",
    });
    expect(json.status).toBe(200);
    expect((await hub.store.integrations.getGlobalTransform(hub.projectUid))?.transform).toBe("$");
  });
});

describe("the secret box", () => {
  it("opens what it sealed, for that project and name only, and nothing altered", () => {
    const box = new SecretBox(new Uint8Array(32).fill(7));
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(), (value, name, flip) => {
        const sealed = box.seal("app:1", name, value);
        expect(box.open("app:1", name, sealed)).toBe(value);
        expect(box.open("app:2", name, sealed)).toBeUndefined();
        const bytes = Buffer.from(sealed.slice(3), "base64");
        bytes[flip % bytes.length]! ^= 1;
        expect(box.open("app:1", name, `v1:${bytes.toString("base64")}`)).toBeUndefined();
      }),
      { seed: 29, numRuns: 200 },
    );
  });
});
