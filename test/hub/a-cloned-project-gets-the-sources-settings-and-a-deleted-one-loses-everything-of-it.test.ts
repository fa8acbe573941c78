import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe("CloneProject", () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await TestHub.start();
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("makes a project the caller owns with the source's variables, fleets, routes, secrets and webhooks", async () => {
    await hub.put(hub.p("/environment_variables"), { environment_variables: { mode: "eco" } });
    const fleet = (await hub.post(hub.p("/fleets"), { label: "Pumps" })).json;
    await hub.put(hub.p(`/fleets/${fleet.uid}/environment_variables`), {
      environment_variables: { rate: "5" },
    });
    await hub.post(hub.p("/routes"), {
      label: "Pumps only",
      type: "http",
      disabled: true,
      http: { url: "http://127.0.0.1:9/in", fleets: [fleet.uid], http_headers: { A: "{{secret.TOKEN}}" } },
    });
    await hub.post(hub.p("/secrets"), { name: "TOKEN", value: "tok" });
    await hub.put(hub.p("/webhooks/ttn"), { transform: "{'body': body}" });
    await hub.device();

    const res = await hub.post(hub.p("/clone"), { label: "Copy", billing_account_uid: hub.orgUid });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ label: "Copy", role: "owner" });
    const copy = `/v1/projects/${res.json.uid}`;
    expect((await hub.get(`${copy}/environment_variables`)).json.environment_variables).toEqual({
      mode: "eco",
    });
    const fleets = (await hub.get(`${copy}/fleets`)).json.fleets;
    expect(fleets.map((f: { label: string }) => f.label)).toEqual(["Pumps"]);
    expect(fleets[0].uid).not.toBe(fleet.uid);
    expect(fleets[0].environment_variables).toEqual({ rate: "5" });
    const routes = (await hub.get(`${copy}/routes`)).json;
    expect(routes).toHaveLength(1);
    const route = (await hub.get(`${copy}/routes/${routes[0].uid}`)).json;
    expect(route.http.fleets).toEqual([fleets[0].uid]);
    expect((await hub.get(`${copy}/secrets`)).json.secrets.map((s: { name: string }) => s.name)).toEqual([
      "TOKEN",
    ]);
    const sealed = await hub.store.integrations.getSecretCiphertext(res.json.uid, "TOKEN");
    expect(hub.services.integrations.box.open(res.json.uid, "TOKEN", sealed!)).toBe("tok");
    expect((await hub.get(`${copy}/webhooks/ttn`)).json.transform).toBe("{'body': body}");
    expect((await hub.get(`${copy}/devices`)).json.devices).toEqual([]);
  });

  it("leaves out fleets and routes when told, and needs the owner role and a billing account the caller may use", async () => {
    const res = await hub.post(hub.p("/clone"), {
      label: "Bare",
      billing_account_uid: hub.orgUid,
      disable_clone_fleets: true,
      disable_clone_routes: true,
    });
    expect(res.status).toBe(201);
    expect((await hub.get(`/v1/projects/${res.json.uid}/fleets`)).json.fleets).toEqual([]);
    expect((await hub.get(`/v1/projects/${res.json.uid}/routes`)).json).toEqual([]);
    expectErrorBody(
      await hub.post(hub.p("/clone"), { label: "x", billing_account_uid: hub.orgUid }, { as: "developer" }),
      403,
    );
    expectErrorBody(await hub.post(hub.p("/clone"), { label: "x", billing_account_uid: "org:nope" }), 404);
    expect((await hub.post(hub.p("/clone"), { billing_account_uid: hub.orgUid })).json.err).toMatch(
      /label is required/,
    );
  });

  it("DeleteProject removes a project with its devices and events, for its owners only", async () => {
    const made = (await hub.post(hub.p("/clone"), { label: "Doomed", billing_account_uid: hub.orgUid })).json;
    const product = `product:com.example:doomed`;
    await hub.post(`/v1/projects/${made.uid}/products`, { product_uid: product, label: "Doomed" });
    await hub.post(`/v1/products/${product}/devices/dev:777/webhook-event`, {
      file: "data.qo",
      body: { n: 1 },
    });
    expect((await hub.get(`/v1/projects/${made.uid}/events`)).json.events).toHaveLength(1);
    expectErrorBody(await hub.delete(`/v1/projects/${made.uid}`, { as: "developer" }), 403);
    expect((await hub.delete(`/v1/projects/${made.uid}`)).status).toBe(200);
    expectErrorBody(await hub.get(`/v1/projects/${made.uid}`), 404);
    expect(await hub.store.devices.getDevice("dev:777")).toBeUndefined();
    expect(await hub.store.telemetry.getEvent(made.uid, "x")).toBeUndefined();
    // The source project is untouched.
    expect((await hub.get(hub.p())).status).toBe(200);
  });
});
