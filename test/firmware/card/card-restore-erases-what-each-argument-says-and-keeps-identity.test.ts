import { describe, expect, it } from "vitest";
import { CARD_KEYS } from "../../../firmware/config/CardSettings.js";
import { ENV_KEYS } from "../../../firmware/env/Environment.js";
import { LORA_DETAILS_KEY } from "../../../firmware/config/HubConfig.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

/** A module with notes, a tracker, hub and host variables and every kind of setting. */
async function usedModule(variant = "cell"): Promise<TestModule> {
  const t = await bootTestModule({ variant });
  const box = t.module.notebox;
  await box.transact(() => {
    box.appendToQueue("sensors.qo", { body: { temp: 21 }, time: 0 });
    box.createTracker("app");
    box.setConfig(ENV_KEYS.hub, { project: { interval: "60" }, time: 1_780_000_000 });
  });
  await t.req({ req: "hub.set", product: "com.example:restore", mode: "continuous", outbound: 10 });
  await t.req({ req: "env.default", name: "interval", text: "30" });
  await t.req({ req: "env.set", name: "debug", text: "on" });
  await t.req({ req: "card.voltage", mode: "lipo" });
  await t.req({ req: "card.io", i2c: 0x18, mode: "+busy" });
  if (variant !== "lora") await t.req({ req: "card.contact", name: "Ada" });
  return t;
}

describe("card.restore", () => {
  it("without arguments erases the file system only and keeps the configuration", async () => {
    const t = await usedModule();
    const device = t.module.deviceUid;
    await t.clock.advance(1_000);
    expect(await t.req({ req: "card.restore" })).toEqual({});
    expect(t.module.bootedAt).toBe(t.clock.now()); // it restarted
    const box = t.module.notebox;
    expect([...box.files()]).toEqual([]);
    expect([...box.trackers()]).toEqual([]);
    expect(t.module.deviceUid).toBe(device);
    // Hub-delivered values are dropped (they come back at the next sync); host values stay.
    expect((await t.req({ req: "env.get" })).body).toEqual({ interval: "30", debug: "on" });
    expect(await t.req({ req: "hub.get" })).toMatchObject({
      product: "com.example:restore",
      mode: "continuous",
    });
    expect(await t.req({ req: "card.voltage", mode: "?" })).toEqual({
      mode: "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0",
    });
    expect(box.config(CARD_KEYS.deprovision)).toBeUndefined();
  });

  it("with delete resets every setting except the identity and the alternate I2C address", async () => {
    const t = await usedModule();
    const device = t.module.deviceUid;
    expect(await t.req({ req: "card.restore", delete: true })).toEqual({});
    const box = t.module.notebox;
    expect([...box.files()]).toEqual([]);
    expect(t.module.deviceUid).toBe(device);
    expect(await t.req({ req: "hub.get" })).toEqual({ device, mode: "periodic", host: "a.notefile.net" });
    expect(await t.req({ req: "env.get" })).toEqual({});
    expect(await t.req({ req: "card.voltage", mode: "?" })).toEqual({ mode: "normal:2.5;dead:0" });
    expect(await t.req({ req: "card.contact" })).toEqual({});
    expect(box.config(CARD_KEYS.io)).toEqual({ i2c: 0x18 });
  });

  it("with connected also marks the module for deprovisioning at its next session", async () => {
    const t = await usedModule();
    await t.req({ req: "card.restore", connected: true });
    expect(t.module.notebox.config(CARD_KEYS.deprovision)).toBe(true);
    expect((await t.req({ req: "hub.get" })).product).toBe("com.example:restore");
  });

  it("on LoRa requires delete and keeps the LoRaWAN details", async () => {
    const t = await usedModule("lora");
    const details = {
      deveui: "0011223344556677",
      appeui: "8899AABBCCDDEEFF",
      appkey: "00112233445566778899AABBCCDDEEFF",
    };
    await t.req({ req: "hub.set", details });
    const refused = await t.req({ req: "card.restore" });
    expect(refused.err).toMatch(/delete:true is required/);
    expect([...t.module.notebox.files()].length).toBe(1); // nothing was erased
    expect(await t.req({ req: "card.restore", delete: true })).toEqual({});
    expect(t.module.notebox.config(LORA_DETAILS_KEY)).toEqual(details);
    expect((await t.req({ req: "hub.get" })).product).toBeUndefined();
  });

  it("survives a reboot: what it erased stays erased", async () => {
    const t = await usedModule();
    await t.req({ req: "card.restore", delete: true });
    const again = await t.reboot();
    expect([...again.module.notebox.files()]).toEqual([]);
    expect(again.module.deviceUid).toBe(t.module.deviceUid);
    expect((await again.req({ req: "hub.get" })).mode).toBe("periodic");
  });

  it("checks argument types", async () => {
    const t = await usedModule();
    expect((await t.req({ req: "card.restore", delete: "yes" })).err).toMatch(/\{io\}/);
    expect([...t.module.notebox.files()].length).toBe(1);
  });
});
