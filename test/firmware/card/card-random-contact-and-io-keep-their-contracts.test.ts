import { describe, expect, it } from "vitest";
import { decodeBase64 } from "../../../core/base64.js";
import { CARD_KEYS } from "../../../firmware/config/CardSettings.js";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.random", () => {
  it("returns a number below count, from the module's seeded randomness", async () => {
    const a = await bootTestModule({ seed: 5 });
    const b = await bootTestModule({ seed: 5 });
    for (let i = 0; i < 50; i++) {
      const reply = await a.req({ req: "card.random", count: 10 });
      expect(await b.req({ req: "card.random", count: 10 })).toEqual(reply);
      expect((reply.count as number | undefined) ?? 0).toBeLessThan(10);
    }
    const full = (await a.req({ req: "card.random" })).count as number;
    expect(Number.isInteger(full) && full >= 0 && full <= 0xffffffff).toBe(true);
  });

  it('returns count random bytes as base64 with mode "payload"', async () => {
    const t = await bootTestModule();
    const { payload } = await t.req({ req: "card.random", mode: "payload", count: 33 });
    expect(decodeBase64(payload as string)).toHaveLength(33);
  });

  it("rejects bad modes and counts", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.random", mode: "bytes" })).err).toMatch(/mode must be "payload"/);
    expect((await t.req({ req: "card.random", mode: "payload" })).err).toMatch(/count must be 1 to 4096/);
    expect((await t.req({ req: "card.random", mode: "payload", count: 5000 })).err).toMatch(/count must be/);
    expect((await t.req({ req: "card.random", count: -3 })).err).toMatch(/count must be/);
    expect((await t.req({ req: "card.random", count: "9" })).err).toMatch(/\{io\}/);
  });

  it("does not exist on LoRa", async () => {
    const t = await bootTestModule({ variant: "lora" });
    expect((await t.req({ req: "card.random" })).err).toBe("request not supported for lora {not-supported}");
  });
});

describe("card.contact", () => {
  it("sets any of the fields, reads them back, keeps them, and clears one with an empty string", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.contact" })).toEqual({});
    const set = { name: "Tom Turkey", org: "Blues", role: "Head of Security", email: "tom@example.com" };
    expect(await t.req({ req: "card.contact", ...set })).toEqual(set);
    expect(await t.req({ req: "card.contact", role: "" })).toEqual({ ...set, role: undefined });
    const again = await t.reboot();
    expect(await again.req({ req: "card.contact" })).toEqual({
      name: "Tom Turkey",
      org: "Blues",
      email: "tom@example.com",
    });
  });

  it("rejects an email address without an @ and does not exist on LoRa", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.contact", name: "x", email: "nobody" })).err).toMatch(
      /not an email address/,
    );
    expect(await t.req({ req: "card.contact" })).toEqual({});
    const lora = await bootTestModule({ variant: "lora" });
    expect((await lora.req({ req: "card.contact" })).err).toMatch(/\{not-supported\}/);
  });
});

describe("card.io", () => {
  it("keeps an alternate I2C address for the I2C target, and -1 or 0x17 restores the default", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.io", i2c: 0x18 })).toEqual({});
    expect(t.module.notebox.config(CARD_KEYS.io)).toEqual({ i2c: 0x18 });
    await t.req({ req: "card.io", i2c: -1 });
    expect(t.module.notebox.config(CARD_KEYS.io)).toBeUndefined();
    await t.req({ req: "card.io", i2c: 0x17 });
    expect(t.module.notebox.config(CARD_KEYS.io)).toBeUndefined();
    for (const bad of [0, 7, 0x78, 300, -2])
      expect((await t.req({ req: "card.io", i2c: bad })).err, String(bad)).toMatch(
        /i2c must be a 7-bit address/,
      );
  });

  it("records each IO mode and -1 resets them", async () => {
    const t = await bootTestModule();
    for (const mode of ["-usb", "+busy", "i2c-master-disable", "+fallback"])
      await t.req({ req: "card.io", mode });
    expect(t.module.notebox.config(CARD_KEYS.io)).toEqual({
      usbDisabled: true,
      busyLed: true,
      i2cMasterDisabled: true,
      ntnFallback: true,
    });
    for (const mode of ["usb", "-busy", "i2c-master-enable", "-fallback"])
      await t.req({ req: "card.io", mode });
    expect(t.module.notebox.config(CARD_KEYS.io)).toBeUndefined();
    await t.req({ req: "card.io", mode: "+usb" });
    await t.req({ req: "card.io", mode: "-usb", i2c: 0x20 });
    await t.req({ req: "card.io", mode: "-1" });
    expect(t.module.notebox.config(CARD_KEYS.io)).toEqual({ i2c: 0x20 });
    expect((await t.req({ req: "card.io", mode: "turbo" })).err).toMatch(/mode "turbo" is not one of/);
  });
});
