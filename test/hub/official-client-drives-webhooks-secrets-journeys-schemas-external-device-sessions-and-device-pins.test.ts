import type { AddressInfo } from "node:net";
// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestHub } from "./support/hubFixture.js";
import { callOperation } from "./support/officialClient.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The official JavaScript client (@blues-inc/notehub-js 1.0.27-beta.5) against the hub listening
 * on loopback, for the groups of the current definition that version has no API class for
 * (webhooks, project secrets, journeys, notefile schemas, the AWS role configuration, external
 * devices' sessions): its ApiClient's own `callApi`, the machinery every generated API class uses,
 * with the client's authentication, serialisation and error handling; and its DeviceApi's
 * environment variables by a device's PIN (the client's `pin` authentication, X-Auth-Token).
 */
describe("the official client drives webhooks, secrets, journeys, schemas, external devices' sessions and device PINs", () => {
  let hub: TestHub;
  let client: any;
  let project: string;
  let product: string;

  const call = (method: string, path: string, pathParams: object, body: unknown = null, query: object = {}) =>
    callOperation(client, method, path, pathParams, { query, body });

  beforeAll(async () => {
    hub = await TestHub.start();
    await hub.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = hub.app.server.address() as AddressInfo;
    client = new NotehubJs.ApiClient(`http://127.0.0.1:${port}`);
    client.authentications.api_key.apiKey = hub.tokens.owner;
    project = hub.projectUid;
    product = hub.productUid;
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("creates a webhook, posts an event through it, reads and deletes it", async () => {
    const W = "/v1/projects/{projectUID}/webhooks/{webhookUID}";
    await call(
      "POST",
      W,
      { projectUID: project, webhookUID: "meter" },
      { transform: '{"device":"dev:meter1","body":body}' },
    );
    expect((await call("GET", W, { projectUID: project, webhookUID: "meter" })).data).toMatchObject({
      id: "meter",
      disabled: false,
    });
    const listed = await call("GET", "/v1/projects/{projectUID}/webhooks", { projectUID: project });
    expect(listed.data.webhooks.map((w: any) => w.id)).toEqual(["meter"]);
    await call(
      "POST",
      "/v1/products/{productUID}/webhooks/{webhookUID}/event",
      { productUID: product, webhookUID: "meter" },
      { kwh: 12.5 },
    );
    const events = await hub.get(hub.p("/events?deviceUID=dev:meter1"));
    expect(events.json.events.map((e: any) => e.body)).toEqual([{ kwh: 12.5 }]);
    await call("DELETE", W, { projectUID: project, webhookUID: "meter" });
    const gone = await call("GET", W, { projectUID: project, webhookUID: "meter" }).catch((e: any) => e);
    expect(gone.status).toBe(404);
  });

  it("creates, lists and deletes a project secret, whose value never comes back", async () => {
    const S = "/v1/projects/{projectUID}/secrets";
    await call("POST", S, { projectUID: project }, { name: "TOKEN", value: "very-secret" });
    const listed = await call("GET", S, { projectUID: project });
    expect(listed.data.secrets.map((s: any) => s.name)).toEqual(["TOKEN"]);
    expect(JSON.stringify(listed.data)).not.toContain("very-secret");
    await call("PUT", `${S}/{secretName}`, { projectUID: project, secretName: "TOKEN" }, { value: "newer" });
    await call("DELETE", `${S}/{secretName}`, { projectUID: project, secretName: "TOKEN" });
    expect((await call("GET", S, { projectUID: project })).data).toEqual({ secrets: [] });
  });

  it("opens and closes an external device's session, reads its journeys and the project's schemas", async () => {
    const X = "/v1/products/{productUID}/ext-devices/{deviceUID}/session/{what}";
    await call(
      "POST",
      X,
      { productUID: product, deviceUID: "dev:tracker9", what: "open" },
      { transport: "lorawan" },
    );
    const T = Math.floor(hub.clock.now() / 1000);
    for (let i = 1; i <= 2; i++) {
      await hub.services.events.record({
        projectUid: project,
        deviceUid: "dev:tracker9",
        file: "_track.qo",
        whenSec: T + 60 * i,
        data: { req: "note.add", body: { journey: T, jcount: i, velocity: 1.5 } },
      });
    }
    await call("POST", X, { productUID: product, deviceUID: "dev:tracker9", what: "close" }, {});
    const journeys = await call("GET", "/v1/projects/{projectUID}/devices/{deviceUID}/journeys", {
      projectUID: project,
      deviceUID: "dev:tracker9",
    });
    expect(journeys.data.journeys).toMatchObject([{ journey_id: T, total_events: 2 }]);
    const schemas = await call("GET", "/v1/projects/{projectUID}/schemas", { projectUID: project });
    const track = schemas.data.find((s: any) => s.notefile === "_track.qo");
    expect(track.properties.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(["journey", "jcount", "velocity"]),
    );
    const aws = await call("GET", "/v1/projects/{projectUID}/aws-role-config", { projectUID: project });
    expect(aws.data.aws_account_id).toBe("");
  });

  it("reads and sets a device's environment variables with the device's PIN", async () => {
    const device = (await hub.device({ serialNumber: "kiosk-2" })).uid;
    const issued = await hub.post(hub.p(`/devices/${device}/pin`));
    const pinned = new NotehubJs.ApiClient(client.basePath);
    pinned.authentications.pin.apiKey = issued.json.pin;
    const devices = new NotehubJs.DeviceApi(pinned);
    await devices.putDeviceEnvironmentVariablesByPin(
      product,
      device,
      NotehubJs.EnvironmentVariables.constructFromObject({ environment_variables: { mode: "kiosk" } }),
    );
    const read = await devices.getDeviceEnvironmentVariablesByPin(product, device);
    expect(read.environment_variables).toMatchObject({ mode: "kiosk" });
    pinned.authentications.pin.apiKey = "00000000" === issued.json.pin ? "11111111" : "00000000";
    const refused = await devices.getDeviceEnvironmentVariablesByPin(product, device).catch((e: any) => e);
    expect(refused.status).toBe(401);
  });

  it("is refused without a token of the project as the hub refuses anyone", async () => {
    client.authentications.api_key.apiKey = hub.tokens.outsider;
    const refused = await call("GET", "/v1/projects/{projectUID}/secrets", { projectUID: project }).catch(
      (e: any) => e,
    );
    client.authentications.api_key.apiKey = hub.tokens.owner;
    expect([403, 404]).toContain(refused.status);
  });
});
