import { afterEach, describe, expect, it } from "vitest";
import { HttpEndpoint } from "../hub/routes/support/servers.js";
import { SyncWorld } from "../sync/support/syncWorld.js";
import { echoJson } from "./support/webHost.js";

/**
 * A periodic module has no session open for web requests until `hub.set on:true` opens a
 * temporary continuous one; `hub.set off:true` ends it and web requests fail again.
 */
describe("web requests in periodic mode", () => {
  let world: SyncWorld | undefined;
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await world?.close();
    await endpoint?.close();
    world = endpoint = undefined;
  });

  it("work after hub.set on:true and stop after hub.set off:true", async () => {
    world = await SyncWorld.start("in-process");
    endpoint = await HttpEndpoint.start();
    endpoint.handler = echoJson;
    const sim = await world.module();
    await world.proxyRoute("api", `${endpoint.url}/api/`);
    const before = await sim.module.request({ req: "web.get", route: "api", name: "x" });
    expect(before?.["err"]).toMatch(/online/);

    await world.req(sim, { req: "hub.set", on: true });
    await world.clock.runDue();
    await sim.module.sync.idle();
    expect(sim.module.sync.isOnline).toBe(true);
    expect(await world.req(sim, { req: "web.get", route: "api", name: "x" })).toMatchObject({
      result: 200,
      body: { method: "GET", url: "/api/x" },
    });

    await world.req(sim, { req: "hub.set", off: true });
    await world.clock.runDue();
    const after = await sim.module.request({ req: "web.get", route: "api", name: "x" });
    expect(after?.["err"]).toMatch(/online/);
  });
});
