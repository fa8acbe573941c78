import { afterEach, describe, expect, it } from "vitest";
import { SyncWorld, TRANSPORTS } from "../sync/support/syncWorld.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";

/**
 * Leaving continuous mode (`hub.set mode:periodic|minimum|off|dfu`) ends the session held open
 * at once, not when its 60-second wait for signals on the hub next returns. Reference:
 * hub.set.req.notecard.api.json, `mode` `dfu`: "effectively the same as `off` in terms of the
 * Notecard's network and Notehub connections"; our spec (spec/api-spec.md, sync modes): `dfu`
 * behaves like `off` for network and hub connection, and dfu.get works in dfu mode.
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function onlineModule(transport: (typeof TRANSPORTS)[number]): Promise<[SyncWorld, SimulatedModule]> {
  world = await SyncWorld.start(transport);
  const sim = await world.module();
  await world.online(sim);
  expect(await sim.module.request({ req: "hub.status" })).toMatchObject({ connected: true });
  return [world, sim];
}

describe.each(TRANSPORTS)("leaving continuous mode over %s", (transport) => {
  it.each(["periodic", "minimum", "off", "dfu"])(
    "hub.set mode:%s disconnects at once, and hub.status and hub.sync.status agree",
    async (mode) => {
      const [w, sim] = await onlineModule(transport);
      expect(w.services.sync.openSessions).toBe(1);
      await w.req(sim, { req: "hub.set", mode });
      // The same instant on the module's clock: nothing waited for.
      expect(sim.module.sync.isOnline).toBe(false);
      expect(await w.req(sim, { req: "hub.status" })).toEqual({ status: "not connected {disconnected}" });
      const status = await w.req(sim, { req: "hub.sync.status" });
      expect(status["status"]).not.toMatch(/\{connected\}/);
      expect(status["mode"]).toBe("{modem-off}");
      expect(await sim.module.request({ req: "web.get", route: "api", name: "/x" })).toEqual({
        err: "web operations require being online (hub.set)",
      });
      // The hub closed the session and let its wait go, well before the wait's 60 seconds.
      await w.clock.advance(1000);
      await sim.module.sync.idle();
      expect(w.services.sync.openSessions).toBe(0);
      expect(w.services.notifier.listening).toBe(0);
      // Ending the session on purpose is no failure.
      const after = await w.req(sim, { req: "hub.sync.status" });
      expect(after["alert"]).toBeUndefined();
      expect(after["status"]).not.toMatch(/sync-error/);
    },
  );

  it("dfu.get answers as soon as the module is in dfu mode", async () => {
    const [w, sim] = await onlineModule(transport);
    await w.req(sim, { req: "hub.set", mode: "dfu" });
    expect(await sim.module.request({ req: "dfu.get", length: 0 })).toEqual({});
  });
});
