import { describe, expect, it } from "vitest";
import { MemoryKvStore } from "../../../firmware/storage/MemoryKvStore.js";
import { resolveVariant, variantForSku, VARIANTS } from "../../../firmware/Variant.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const body = {
  org: "Blues Wireless",
  product: "Notecard",
  ver_major: 9,
  ver_minor: 3,
  ver_patch: 1,
  ver_build: 17434,
  built: "Oct 16 2025 14:29:26",
};

describe("card.version", () => {
  it("answers a cellular module like the real 9.3.1 reply, field order included", async () => {
    const t = await bootTestModule({ variant: "cell" });
    const reply = await t.req({ req: "card.version" });
    expect(reply).toEqual({
      body: { ...body, target: "u5", version: "notecard-u5-9.3.1" },
      version: "notecard-9.3.1.17434",
      name: "Blues Wireless Notecard",
      device: t.module.deviceUid,
      sku: "NOTE-MBNAN",
      ordering_code: "EA0WT1C0AXBN",
      board: "5.13",
      cell: true,
      gps: true,
    });
    expect(Object.keys(reply)).toEqual([
      "body",
      "version",
      "name",
      "device",
      "sku",
      "ordering_code",
      "board",
      "cell",
      "gps",
    ]);
  });

  it.each([
    [
      "cell-wifi",
      { sku: "NOTE-WBNAW", ordering_code: "FA0YT1N0ACAM", board: "5.13", cell: true, gps: true, wifi: true },
      "u5",
    ],
    ["wifi", { sku: "NOTE-ESP", ordering_code: "WZ0XV1N0ZZAV", board: "4.0", wifi: true }, "s3"],
    ["lora", { sku: "NOTE-LWUS" }, "wl"],
    ["ntn", { sku: "NOTE-NBGLWX", cell: true, gps: true, wifi: true }, "u5"],
  ] as const)("reports the %s variant's SKU, radios and target", async (variant, fields, target) => {
    const t = await bootTestModule({ variant });
    const reply = await t.req({ req: "card.version" });
    const { body: replyBody, version: _v, name: _n, device: _d, ...rest } = reply;
    expect(rest).toEqual(fields);
    expect(replyBody).toMatchObject({ target, version: `notecard-${target}-9.3.1` });
  });

  it("keeps its DeviceUID (dev: and 15 digits) across reboots and reports it in hub.get too", async () => {
    const store = new MemoryKvStore();
    const first = await bootTestModule({ store, seed: 7 });
    const { device } = await first.req({ req: "card.version" });
    expect(device).toMatch(/^dev:\d{15}$/);
    // A different seed would make a different UID: the kept one comes from flash.
    const again = await bootTestModule({ store, seed: 99 });
    expect((await again.req({ req: "card.version" })).device).toBe(device);
    expect((await again.req({ req: "hub.get" })).device).toBe(device);
  });

  it("accepts the api argument as a number or a string and refuses a newer API with {version}", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.version", api: 9 })).version).toBe("notecard-9.3.1.17434");
    expect((await t.req({ req: "card.version", api: "1" })).version).toBe("notecard-9.3.1.17434");
    const newer = await t.req({ req: "card.version", api: 10 });
    expect(newer.err).toMatch(/\{version\}/);
    expect(newer.err).not.toMatch(/\{io\}/);
    expect((await t.req({ req: "card.version", api: "x" })).err).toMatch(/api must be an API major version/);
    expect((await t.req({ req: "card.version", api: 0 })).err).toMatch(/api/);
    expect((await t.req({ req: "card.version", api: true })).err).toMatch(/\{io\}/);
  });

  it("reports a chosen SKU of a family without inventing its ordering code, and the XP property", async () => {
    const t = await bootTestModule({ variant: "NOTE-WBGLW" });
    const reply = await t.req({ req: "card.version" });
    expect(reply).toMatchObject({ sku: "NOTE-WBGLW", cell: true, wifi: true });
    expect(reply.ordering_code).toBeUndefined();
    expect(t.module.variant.name).toBe("cell-wifi");
    const xp = await bootTestModule({ variant: "cell+xp" });
    expect(xp.module.variant.extendedPower).toBe(true);
  });
});

describe("variant selection", () => {
  it("resolves names, SKUs in any case and the +xp suffix, and nothing else", () => {
    expect(resolveVariant("lora")).toBe(VARIANTS.lora);
    expect(resolveVariant("note-lweu")).toMatchObject({ name: "lora", sku: "NOTE-LWEU" });
    expect(resolveVariant("NOTE-MBNAN")).toBe(VARIANTS.cell);
    expect(resolveVariant("wifi+XP")).toMatchObject({ name: "wifi", extendedPower: true });
    expect(resolveVariant("NOTE-NOPE")).toBeUndefined();
    expect(resolveVariant("toString")).toBeUndefined();
    expect(variantForSku("NOTE-NBGLWX")).toBe(VARIANTS.ntn);
  });

  it("refuses to boot an unknown variant", async () => {
    await expect(bootTestModule({ variant: "satphone" })).rejects.toThrow(/unknown module variant/);
  });
});
