import { afterAll, beforeAll, expect, it } from "vitest";
import { FREE_LOGIN_FAILURES } from "../../hub/auth/LoginThrottle.js";
import { describeOnBackends } from "../support/backends.js";
import { expectErrorBody, type HubResponse, TestHub } from "./support/hubFixture.js";

// On PostgreSQL the wrong guesses are counted in the store (several hub processes share them).
describeOnBackends(
  "a device's PIN opens that device's environment variables (…/environment_variables_with_pin)",
  (backend) => {
    let hub: TestHub;
    let device: string;
    let pin: string;

    const url = (productUid: string, deviceUid: string) =>
      `/v1/products/${productUid}/devices/${deviceUid}/environment_variables_with_pin`;
    const withPin = (method: "GET" | "PUT", p: string | null, body?: unknown, path?: string) =>
      hub.request(method, path ?? url(hub.productUid, device), {
        as: null,
        headers: p === null ? {} : { "x-auth-token": p },
        body,
      });
    const issue = (deviceUid: string, as = "developer") =>
      hub.post(hub.p(`/devices/${deviceUid}/pin`), undefined, { as });
    /** A PIN that is not `pin` (same length, one digit changed). */
    const wrong = () => `${pin.slice(0, -1)}${(Number(pin.at(-1)) + 1) % 10}`;

    beforeAll(async () => {
      hub = await TestHub.start({ backend });
      device = (await hub.device()).uid;
      await hub.put(hub.p("/environment_variables"), { environment_variables: { site: "north", rate: "5" } });
      const issued = await issue(device);
      expect(issued.status).toBe(200);
      pin = issued.json.pin;
    });

    afterAll(async () => {
      expect(hub.violations).toEqual([]);
      await hub.close();
    });

    it("a developer gets an 8-digit PIN, shown once; the device record keeps only a salted hash", async () => {
      expect(pin).toMatch(/^\d{8}$/);
      const stored = (await hub.store.devices.getDevice(device))!;
      expect(stored.details.pinHash).toMatch(/^scrypt\$/);
      expect(JSON.stringify(stored)).not.toContain(pin);
      // Nothing the API shows of the device carries the PIN or its hash.
      expect((await hub.get(hub.p(`/devices/${device}`))).text).not.toContain("scrypt");
    });

    it("reads the device's variables with their effective values, as the token route does", async () => {
      const res = await withPin("GET", pin);
      expect(res.status).toBe(200);
      const byToken = await hub.get(hub.p(`/devices/${device}/environment_variables`));
      expect(res.json).toEqual(byToken.json);
      expect(res.json.environment_variables_effective).toEqual({ rate: "5", site: "north" });
    });

    it("sets the device's variables, which the hub then gives the device over the project's", async () => {
      const res = await withPin("PUT", pin, { environment_variables: { rate: "60" } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ environment_variables: { rate: "60" } });
      const byToken = (await hub.get(hub.p(`/devices/${device}/environment_variables`))).json;
      expect(byToken.environment_variables).toEqual({ rate: "60" });
      expect(byToken.environment_variables_effective).toEqual({ rate: "60", site: "north" });
      // The body is checked as the token route checks it.
      expectErrorBody(await withPin("PUT", pin, { environment_variables: { rate: 60 } }), 400);
    });

    it("refuses no PIN and a wrong PIN with 401, a token in place of a PIN too", async () => {
      const none = await withPin("GET", null);
      expectErrorBody(none, 401);
      expect(none.json.err).toContain("X-Auth-Token");
      expectErrorBody(await withPin("GET", wrong()), 401);
      expectErrorBody(await withPin("PUT", "", { environment_variables: { a: "b" } }), 401);
      const token = await hub.get(url(hub.productUid, device), { as: "owner" });
      expectErrorBody(token, 401);
      await hub.services.pins.succeeded(device);
    });

    it("answers 404 for an unknown device, an unknown product and another product's device", async () => {
      const other = (await hub.device()).uid;
      const res = (path: string) => withPin("GET", pin, undefined, path);
      expectErrorBody(await res(url(hub.productUid, "dev:999999999999999")), 404);
      expectErrorBody(await res(url("product:com.example:nothing", device)), 404);
      expectErrorBody(await res(url(hub.otherProductUid, device)), 404);
      // A device of the product with no PIN issued: no PIN opens it, not even another device's.
      expectErrorBody(await res(url(hub.productUid, other)), 401);
      await hub.services.pins.succeeded(other);
    });

    it("slows guesses per device: after the free failures even the right PIN waits, then works", async () => {
      let last: HubResponse | undefined;
      for (let i = 0; i <= FREE_LOGIN_FAILURES; i++) last = await withPin("GET", wrong());
      expectErrorBody(last!, 401);
      const held = await withPin("GET", pin);
      expectErrorBody(held, 429);
      expect(held.headers["retry-after"]).toBe("1");
      expect(held.json.err).toContain("too many wrong PINs");
      await hub.clock.advance(1000);
      expect((await withPin("GET", pin)).status).toBe(200);
    });

    it("a new PIN replaces the old one and lifts the device's wait; viewers may not issue one", async () => {
      for (let i = 0; i <= FREE_LOGIN_FAILURES; i++) await withPin("GET", wrong());
      expectErrorBody(await withPin("GET", pin), 429);
      const old = pin;
      pin = (await issue(device)).json.pin;
      expect((await withPin("GET", pin)).status).toBe(200);
      if (old !== pin) expectErrorBody(await withPin("GET", old), 401);
      expectErrorBody(await issue(device, "viewer"), 403);
      expectErrorBody(await issue("dev:999999999999999"), 404);
    });
  },
);
