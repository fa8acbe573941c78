// Source: blues/notecard-schema hub.get.rsp.notecard.api.json, `host`: "the URL of the Notehub
// host" the module talks to. A module pointed at a local hub (`cardsim module --hub URL`) reports
// that hub's host and port, not the hosted service's default.
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";

async function hubGet(hub?: { url: string }) {
  const simulated = await SimulatedModule.boot({ clock: new FakeClock(), seed: 1, ...(hub ? { hub } : {}) });
  try {
    const host = async () => (await simulated.module.request({ req: "hub.get" }))!["host"];
    const before = await host();
    await simulated.module.request({ req: "hub.set", host: "hub.example.test" });
    const set = await host();
    await simulated.module.request({ req: "hub.set", host: "-" });
    return { before, set, reset: await host() };
  } finally {
    await simulated.close();
  }
}

describe("hub.get host", () => {
  it("is the host and port of the hub the module's link reaches, unless hub.set host names another", async () => {
    expect(await hubGet({ url: "https://localhost:7443" })).toEqual({
      before: "localhost:7443",
      set: "hub.example.test",
      reset: "localhost:7443",
    });
  });

  it("is the hosted service's default host with no hub link", async () => {
    expect(await hubGet()).toEqual({
      before: "a.notefile.net",
      set: "hub.example.test",
      reset: "a.notefile.net",
    });
  });
});
