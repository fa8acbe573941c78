import { describe, expect, it } from "vitest";
import { LORA_DETAILS_KEY } from "../../../firmware/config/HubConfig.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const details = {
  deveui: "0011223344556677",
  appeui: "8899aabbccddeeff",
  appkey: "00112233445566778899AABBCCDDEEFF",
};

describe("hub.set per variant", () => {
  it("takes LoRaWAN details on LoRa only, in hex, and resets them with -", async () => {
    const t = await bootTestModule({ variant: "lora" });
    expect(await t.req({ req: "hub.set", details })).toEqual({});
    expect(t.module.notebox.config(LORA_DETAILS_KEY)).toEqual({ ...details, appeui: "8899AABBCCDDEEFF" });
    expect(await t.req({ req: "hub.set", details: "-" })).toEqual({});
    expect(t.module.notebox.config(LORA_DETAILS_KEY)).toBeUndefined();

    const cell = await bootTestModule({ variant: "cell" });
    expect((await cell.req({ req: "hub.set", details })).err).toBe(
      "details is not supported for cell {not-supported}",
    );
  });

  it.each([
    [{ deveui: "0011223344556677", appeui: "8899AABBCCDDEEFF" }, /appkey is missing/],
    [{ ...details, deveui: "00112233445566" }, /deveui must be 16 hex digits/],
    [{ ...details, appkey: "zz112233445566778899AABBCCDDEEFF" }, /appkey must be 32 hex digits/],
    [{ ...details, appeui: 42 }, /appeui must be 16 hex digits/],
    ["reset", /details must be "-" or/],
  ])("rejects malformed LoRaWAN details %j", async (bad, message) => {
    const t = await bootTestModule({ variant: "lora" });
    expect((await t.req({ req: "hub.set", details: bad })).err).toMatch(message);
    expect(t.module.notebox.config(LORA_DETAILS_KEY)).toBeUndefined();
  });

  it("refuses sync in NTN mode and on LoRa, and accepts sync:false there", async () => {
    for (const variant of ["ntn", "lora"]) {
      const t = await bootTestModule({ variant });
      expect((await t.req({ req: "hub.set", sync: true })).err).toBe(
        `sync is not supported for ${variant} {not-supported}`,
      );
      expect(await t.req({ req: "hub.set", sync: false })).toEqual({});
    }
    const cell = await bootTestModule();
    expect(await cell.req({ req: "hub.set", mode: "continuous", sync: true })).toEqual({});
  });

  it("refuses vinbound and voutbound on the extended-power module and on LoRa", async () => {
    const xp = await bootTestModule({ variant: "cell-wifi+xp" });
    expect((await xp.req({ req: "hub.set", vinbound: "normal:60" })).err).toBe(
      "hub.set vinbound is not supported on the extended-power (XP) module {not-supported}",
    );
    expect(await xp.req({ req: "hub.set", outbound: 60 })).toEqual({});
    const lora = await bootTestModule({ variant: "lora" });
    expect((await lora.req({ req: "hub.set", voutbound: "normal:60" })).err).toBe(
      "voutbound is not supported for lora {not-supported}",
    );
  });

  it("works on every variant for the common arguments", async () => {
    for (const variant of ["cell", "cell-wifi", "wifi", "lora", "ntn"]) {
      const t = await bootTestModule({ variant });
      expect(
        await t.req({ req: "hub.set", product: "com.example:any", mode: "periodic", outbound: 60 }),
      ).toEqual({});
      expect(await t.req({ req: "hub.get" })).toMatchObject({ product: "com.example:any", outbound: 60 });
    }
  });
});
