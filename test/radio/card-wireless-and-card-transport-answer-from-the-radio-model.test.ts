import { describe, expect, it } from "vitest";
import { bootTestModule } from "../support/moduleFixture.js";

describe("card.wireless answers from the radio model", () => {
  it("reports the modem off between sessions, with the SIM, the modem and the signal of the good preset", async () => {
    const t = await bootTestModule({ variant: "cell", timeKnown: true });
    const reply = await t.req({ req: "card.wireless" });
    const digits = t.module.deviceUid.slice(4);
    expect(reply).toEqual({
      status: "{modem-off}",
      count: 3,
      net: {
        iccid: `8901410${digits.slice(-12)}`,
        imsi: `310410${digits.slice(-9)}`,
        imei: digits,
        modem: "BG95-M3",
        band: "LTE BAND 2",
        rat: "lte",
        rssi: -69,
        rsrp: -97,
        sinr: 11,
        rsrq: -10,
        bars: 3,
        mcc: 310,
        mnc: 410,
        lac: 1,
        cid: 1,
        updated: t.module.time(),
      },
    });
  });

  it("follows the presets: poor is one bar, none has no registration and no measurements", async () => {
    const t = await bootTestModule({ variant: "cell" });
    t.simulated.radio.signal("poor");
    const poor = await t.req({ req: "card.wireless" });
    expect(poor["count"]).toBe(1);
    expect(poor["net"]).toMatchObject({ rssi: -97, rsrp: -119, rsrq: -18, sinr: -3, bars: 1, rat: "lte" });
    t.simulated.radio.signal("fair", "catm");
    expect((await t.req({ req: "card.wireless" }))["net"]).toMatchObject({
      rat: "catm",
      bars: 2,
      rsrp: -108,
    });
    t.simulated.radio.signal("none");
    const none = await t.req({ req: "card.wireless" });
    expect(none["count"]).toBeUndefined(); // zero is pruned from replies
    expect(Object.keys(none["net"] as object).sort()).toEqual(["iccid", "imei", "imsi", "modem"]);
  });

  it("keeps mode, apn and method in flash across a restart and resets them with -", async () => {
    const t = await bootTestModule({ variant: "cell" });
    expect(
      await t.req({
        req: "card.wireless",
        mode: "nb",
        apn: "iot.example",
        method: "dual-primary-secondary",
        hours: 4,
      }),
    ).toMatchObject({ mode: "nb" });
    const again = await t.reboot();
    const reply = await again.req({ req: "card.wireless" });
    expect(reply["mode"]).toBe("nb");
    expect(reply["net"]).toMatchObject({ apn: "iot.example" });
    expect(again.module.notebox.config("card.wireless")).toEqual({
      mode: "nb",
      apn: "iot.example",
      method: "dual-primary-secondary",
      hours: 4,
    });
    await again.req({ req: "card.wireless", mode: "-", apn: "-", method: "-", hours: -1 });
    expect(again.module.notebox.config("card.wireless")).toBeUndefined();
  });

  it("refuses a mode, a method or hours it does not know, saying which values it takes", async () => {
    const t = await bootTestModule({ variant: "cell" });
    expect((await t.req({ req: "card.wireless", mode: "5g" })).err).toBe(
      'card.wireless: mode "5g" is not one of auto, m, nb, gprs, -',
    );
    expect((await t.req({ req: "card.wireless", method: "both" })).err).toMatch(
      /method "both" is not one of primary/,
    );
    expect((await t.req({ req: "card.wireless", hours: -2 })).err).toMatch(/hours must be a number of hours/);
  });

  it("is not there on WiFi and LoRa modules, as on the real ones", async () => {
    for (const variant of ["wifi", "lora"]) {
      const t = await bootTestModule({ variant });
      expect((await t.req({ req: "card.wireless" })).err).toBe(
        `request not supported for ${variant} {not-supported}`,
      );
    }
  });
});

describe("card.transport answers from its settings and the variant", () => {
  it("defaults to wifi-cell on Cell+WiFi and wifi-cell-ntn on the satellite module", async () => {
    expect(await (await bootTestModule({ variant: "cell-wifi" })).req({ req: "card.transport" })).toEqual({
      method: "wifi-cell",
    });
    expect(await (await bootTestModule({ variant: "ntn" })).req({ req: "card.transport" })).toEqual({
      method: "wifi-cell-ntn",
    });
  });

  it("keeps method, seconds and umin across a restart; - resets the method", async () => {
    const t = await bootTestModule({ variant: "cell-wifi" });
    expect(await t.req({ req: "card.transport", method: "cell", seconds: 600, umin: true })).toEqual({
      method: "cell",
      seconds: 600,
      umin: true,
    });
    const again = await t.reboot();
    expect(await again.req({ req: "card.transport" })).toEqual({ method: "cell", seconds: 600, umin: true });
    expect(await again.req({ req: "card.transport", method: "-", seconds: -1, umin: false })).toEqual({
      method: "wifi-cell",
    });
  });

  it("refuses methods the variant's SKU does not list, and unknown methods everywhere", async () => {
    // card.transport.req.notecard.api.json: each method's `skus`.
    const t = await bootTestModule({ variant: "cell" });
    expect((await t.req({ req: "card.transport", method: "wifi-cell" })).err).toBe(
      "method wifi-cell is not supported for cell {not-supported}",
    );
    expect((await t.req({ req: "card.transport", method: "carrier-pigeon" })).err).toMatch(
      /^card\.transport: method "carrier-pigeon" is not one of -, cell, cell-ntn, dual-wifi-cell/,
    );
    const ntn = await bootTestModule({ variant: "ntn" });
    expect(await ntn.req({ req: "card.transport", method: "cell-ntn", allow: true })).toEqual({
      method: "cell-ntn",
      allow: true,
    });
  });

  it("is not there on LoRa modules", async () => {
    const t = await bootTestModule({ variant: "lora" });
    expect((await t.req({ req: "card.transport" })).err).toBe(
      "request not supported for lora {not-supported}",
    );
  });
});
