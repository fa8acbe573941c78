// Source: blues/notecard-schema hub.get.rsp.notecard.api.json, `sync`: "true if the device is in
// continuous mode and set to sync every time a change is detected".
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("hub.get sync (notecard-schema hub.get.rsp: true only in continuous mode with sync set)", () => {
  it("is true in continuous mode with sync:true", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "continuous", sync: true });
    expect((await t.req({ req: "hub.get" })).sync).toBe(true);
  });

  it("is left out once the mode leaves continuous, and back when it returns", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "continuous", sync: true });
    for (const mode of ["periodic", "minimum", "off", "dfu"]) {
      await t.req({ req: "hub.set", mode });
      expect((await t.req({ req: "hub.get" })).sync, mode).toBeUndefined();
    }
    await t.req({ req: "hub.set", mode: "continuous" });
    expect((await t.req({ req: "hub.get" })).sync).toBe(true);
  });

  it("is left out when sync was set outside continuous mode", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "periodic", sync: true });
    expect((await t.req({ req: "hub.get" })).sync).toBeUndefined();
  });

  it("follows a USB policy: true on USB (continuous), left out on battery", async () => {
    const t = await bootTestModule();
    t.power.set({ volts: 5, onUsb: true });
    await t.req({ req: "hub.set", umin: true, sync: true });
    expect(await t.req({ req: "hub.get" })).toMatchObject({ mode: "continuous", sync: true });
    t.power.set({ volts: 3.9, onUsb: false });
    const onBattery = await t.req({ req: "hub.get" });
    expect(onBattery.mode).toBe("minimum");
    expect(onBattery.sync).toBeUndefined();
  });
});
