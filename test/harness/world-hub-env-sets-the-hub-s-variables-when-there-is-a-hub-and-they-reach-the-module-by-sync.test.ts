import { afterEach, describe, expect, it } from "vitest";
import { Scenario } from "cardsim/harness";

// A firmware team's test (imports only cardsim/harness; test/package runs it from the packed
// package): `world.hubEnv` with a hub sets the hub's variables; without one it writes the module's.

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

describe("world.hubEnv", () => {
  it("with a hub of the scenario's own sets the hub's variables: a sync brings them, and the next sync keeps them", async () => {
    sc = await Scenario.start({ seed: "hub-env", hub: "in-process", timeKnown: true });
    const host = sc.attachNoteC();
    const sync = async () => {
      await host.request({ req: "hub.sync" });
      await sc!.run(sc!.module.sync.idle(), { timeout: 600_000 });
    };

    await sc.world.hubEnv({ device: { interval: "60" } });
    // On the hub at once (the device is provisioned if it never synced), on the module not yet.
    expect(await sc.hub!.getDeviceEnvironmentVariables(sc.module.deviceUid)).toEqual({ interval: "60" });
    expect(await host.request({ req: "env.get", name: "interval" })).toEqual({});
    await sync();
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "60" });
    await sync();
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "60" });

    // Each scope given replaces that scope's values; the fleet is the scenario's own.
    await sc.world.hubEnv({ device: { mode: "eco" }, fleet: { interval: "300" }, project: { unit: "C" } });
    await sync();
    expect(await host.request({ req: "env.get", names: ["interval", "mode", "unit"] })).toMatchObject({
      body: { interval: "300", mode: "eco", unit: "C" },
    });
    expect(await sc.hub!.getProjectEnvironmentVariables()).toEqual({ unit: "C" });
    await sc.finish();
  });

  it("without a hub writes the module's copy at once, as the sync engine would", async () => {
    sc = await Scenario.start({ seed: "no-hub" });
    const host = sc.attachNoteC();
    await sc.world.hubEnv({ device: { interval: "60" } });
    expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "60" });
    await sc.finish();
  });

  it("with a hub the scenario cannot administer says what to do instead", async () => {
    const hub = await Scenario.start({ seed: "other", hub: "in-process" });
    try {
      sc = await Scenario.start({ seed: "elsewhere", hub: hub.hub!.connection() });
      await expect(sc.world.hubEnv({ device: { interval: "60" } })).rejects.toThrow(
        /set the variables through that hub's API/,
      );
    } finally {
      await hub.close();
    }
  });
});
