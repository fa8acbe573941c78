import { afterEach, describe, expect, it } from "vitest";
import { Scenario } from "cardsim/harness";

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

describe("a device's PIN, from an app without a project token to the module", () => {
  it("a variable PUT with the PIN reaches the module's env.get at its next sync", async () => {
    sc = await Scenario.start({ seed: "device-pin", hub: "in-process", timeKnown: true });
    const hub = sc.hub!;
    const host = sc.attachNoteC();
    const sync = async () => {
      await host.request({ req: "hub.sync" });
      await sc!.run(sc!.module.sync.idle(), { timeout: 600_000 });
    };
    await sync();
    const device = sc.module.deviceUid;

    const issued = await hub.request<{ pin: string }>(
      "POST",
      `/v1/projects/${hub.projectUid}/devices/${device}/pin`,
    );
    expect(issued.status).toBe(200);
    const path = `/v1/products/${hub.productUid}/devices/${device}/environment_variables_with_pin`;
    const headers = { "x-auth-token": issued.body.pin };
    const put = await hub.request("PUT", path, { environment_variables: { interval: "90" } }, { headers });
    expect(put.status).toBe(200);
    await sync();
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "90" });
    const got = await hub.request<{ environment_variables_effective: Record<string, string> }>(
      "GET",
      path,
      undefined,
      { headers },
    );
    expect(got.body.environment_variables_effective).toEqual({ interval: "90" });
    await sc.finish();
  });
});
