import { afterEach, describe, expect, it } from "vitest";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld, TRANSPORTS } from "./support/syncWorld.js";

/**
 * A variable changed on the hub reaches a module in continuous mode: the hub answers the held
 * session's wait for signals with the new environment (as the hosted hub tells a connected
 * module: the vendor's "Environment Variables" guide, "in continuous mode the Notecard receives
 * changes immediately"), and `hub.sync` in the held session asks the hub for it too. The
 * module's side: env.get.req.notecard.api.json (values set on Notehub reach env.get).
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function online(transport: (typeof TRANSPORTS)[number]): Promise<[SyncWorld, SimulatedModule]> {
  world = await SyncWorld.start(transport);
  const sim = await world.module();
  await world.online(sim);
  return [world, sim];
}

/**
 * The value of `name` once it is `expected`, advancing the clock 10 ms at a time for at most one
 * second: far below the held session's 60-second wait, so only the hub's word can bring it.
 */
async function arrives(
  w: SyncWorld,
  sim: SimulatedModule,
  name: string,
  expected: string | undefined,
): Promise<string | undefined> {
  let text = (await w.req(sim, { req: "env.get", name }))["text"];
  for (let i = 0; i < 100 && text !== expected; i++) {
    await w.clock.advance(10);
    text = (await w.req(sim, { req: "env.get", name }))["text"];
  }
  return text as string | undefined;
}

describe.each(TRANSPORTS)("hub environment changes over %s", (transport) => {
  it("a device variable PUT through the API reaches env.get within a second, not after the wait", async () => {
    const [w, sim] = await online(transport);
    const uid = sim.module.deviceUid;
    const start = w.clock.now();
    await w.api("PUT", `/devices/${uid}/environment_variables`, { environment_variables: { pump: "on" } });
    expect(await arrives(w, sim, "pump", "on")).toBe("on");
    await w.api("DELETE", `/devices/${uid}/environment_variables/pump`);
    expect(await arrives(w, sim, "pump", undefined)).toBeUndefined();
    expect(w.clock.now() - start).toBeLessThan(60_000);
    expect(sim.module.sync.isOnline).toBe(true);
  });

  it("a project variable reaches every device of the project in a held session", async () => {
    const [w, sim] = await online(transport);
    await w.api("PUT", "/environment_variables", { environment_variables: { rate: "5" } });
    expect(await arrives(w, sim, "rate", "5")).toBe("5");
  });

  it("hub.sync in the held session fetches a value the hub did not announce", async () => {
    const [w, sim] = await online(transport);
    // Straight into the hub's store: nobody is told, so only hub.sync can bring it.
    await w.services.store.env.set(
      { kind: "device", uid: sim.module.deviceUid },
      { quiet: "1" },
      w.clock.now(),
    );
    expect((await w.req(sim, { req: "env.get", name: "quiet" }))["text"]).toBeUndefined();
    await w.sync(sim);
    expect(await w.req(sim, { req: "env.get", name: "quiet" })).toMatchObject({ text: "1" });
    expect(sim.module.sync.isOnline).toBe(true);
  });
});
