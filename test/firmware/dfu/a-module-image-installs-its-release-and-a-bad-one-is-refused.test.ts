import { describe, expect, it } from "vitest";
import { FIRMWARE } from "../../../firmware/FirmwareVersion.js";
import { moduleFirmwareImage, moduleImageRelease } from "../../../firmware/dfu/ModuleFirmwareImage.js";
import type { OpenRequest } from "../../../protocol/messages.js";
import { dfuRig } from "./support/dfuRig.js";

const V94 = { major: 9, minor: 4, patch: 0, build: 17500, built: "Jan 15 2026 10:00:00" };
const V95 = { major: 9, minor: 5, patch: 2, build: 17777, built: "Mar 02 2026 08:30:00" };

describe("module firmware images", () => {
  it("carry their release in a firmware::info description the module reads back", () => {
    const image = moduleFirmwareImage({ target: "u5", release: V94, size: 10_000 });
    expect(image.length).toBe(10_000);
    expect(new TextDecoder().decode(image.subarray(0, 59))).toBe(
      'firmware::info:{"org":"Blues Wireless","product":"Notecard"',
    );
    expect(moduleImageRelease(image, "u5")).toEqual({ release: V94 });
    expect(moduleImageRelease(image, "s3")).toEqual({ problem: "it is built for target u5, not s3" });
    expect(moduleImageRelease(new Uint8Array(100), "u5")).toEqual({
      problem: "it is not a module firmware image",
    });
    const host = moduleFirmwareImage({ target: "u5", release: V94, override: { product: "Pump" } });
    expect(moduleImageRelease(host, "u5")).toEqual({ problem: "it is firmware for Pump, not a Notecard" });
    const bare = moduleFirmwareImage({ target: "u5", release: V94, override: { ver_major: null } });
    expect(moduleImageRelease(bare, "u5")).toEqual({ problem: "its version numbers are missing" });
    // Same release and size, same bytes; another seed, other filler.
    expect(moduleFirmwareImage({ target: "u5", release: V94, size: 10_000 })).toEqual(image);
    expect(moduleFirmwareImage({ target: "u5", release: V94, size: 10_000, seed: 2 })).not.toEqual(image);
  });
});

describe("a module firmware update", () => {
  it("installs the release: after the restart card.version and the next session report it", async () => {
    const t = await dfuRig();
    expect(await t.req({ req: "card.version" })).toMatchObject({ version: "notecard-9.3.1.17434" });
    t.hub.offer(
      "card",
      "notecard-9.4.0$20260101000000.bin",
      moduleFirmwareImage({ target: "u5", release: V94 }),
    );
    const boots = t.sim.module;
    await t.sync();
    // The module restarted (a new boot of the same module, on the same flash).
    expect(t.sim.module).toBe(boots);
    expect(await t.req({ req: "card.version" })).toMatchObject({
      version: "notecard-9.4.0.17500",
      body: {
        version: "notecard-u5-9.4.0",
        ver_major: 9,
        ver_minor: 4,
        ver_patch: 0,
        ver_build: 17500,
        built: "Jan 15 2026 10:00:00",
      },
    });
    expect(t.hub.steps("card").map((s) => s.mode)).toEqual(["downloading", "ready", "completed"]);
    expect(t.hub.state("card")).toMatchObject({ mode: "completed", version: "notecard-9.4.0.17500" });
    await t.sync();
    const open = t.hub.messages.filter((m) => m.type === "open").at(-1) as OpenRequest;
    expect(open.context.firmware).toMatchObject({ version: "notecard-u5-9.4.0", ver_build: 17500 });
    // card.version's api check follows the release that runs.
    expect((await t.req({ req: "card.version", api: 10 }))["err"]).toBe(
      "card.version: API 10 is newer than this firmware's API 9 {version}",
    );
  });

  it("keeps the installed release through restarts and a factory reset", async () => {
    const t = await dfuRig();
    t.hub.offer(
      "card",
      "notecard-9.4.0$20260101000000.bin",
      moduleFirmwareImage({ target: "u5", release: V94 }),
    );
    await t.sync();
    await t.sim.powerCycle();
    await t.req({ req: "card.restore", delete: true });
    expect(await t.req({ req: "card.version" })).toMatchObject({ version: "notecard-9.4.0.17500" });
  });

  it("refuses an image built for another target, and keeps running what it ran", async () => {
    const t = await dfuRig({ variant: "wifi" });
    t.hub.offer(
      "card",
      "notecard-9.4.0$20260101000000.bin",
      moduleFirmwareImage({ target: "u5", release: V94 }),
    );
    await t.sync();
    expect(await t.dfu({ req: "dfu.status", name: "card" })).toMatchObject({
      mode: "error",
      status: "the module refused the image: it is built for target u5, not s3",
    });
    expect(await t.req({ req: "card.version" })).toMatchObject({
      body: { version: `notecard-s3-${FIRMWARE.major}.${FIRMWARE.minor}.${FIRMWARE.patch}` },
    });
    expect(t.hub.state("card")).toMatchObject({ mode: "error", errors: 3 });
    const reads = t.hub.reads.length;
    await t.sync();
    expect(t.hub.reads.length).toBe(reads); // refused for good: not downloaded again
  });

  it("moves a fleet between releases: up, and back down", async () => {
    const fleet = await Promise.all([1, 2, 3].map((seed) => dfuRig({ seed })));
    const version = async () =>
      (await Promise.all(fleet.map((t) => t.req({ req: "card.version" })))).map((v) => v["version"]);
    for (const [release, name] of [
      [V95, "notecard-9.5.2$20260301000000.bin"],
      [V94, "notecard-9.4.0$20260302000000.bin"],
    ] as const) {
      for (const t of fleet) t.hub.offer("card", name, moduleFirmwareImage({ target: "u5", release }));
      for (const t of fleet) await t.sync();
      const expected = `notecard-${release.major}.${release.minor}.${release.patch}.${release.build}`;
      expect(await version()).toEqual([expected, expected, expected]);
    }
  });
});
