import { describe, expect, it } from "vitest";
import { md5Hex } from "../../../core/md5.js";
import { IMAGE_OBJECT } from "../../../firmware/dfu/DfuAgent.js";
import { POWER_LOSS_MODES } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

const APP = "app$20260101000000.bin";

/** The module's copy of the host image, read back from its flash. */
async function stored(t: Awaited<ReturnType<typeof dfuRig>>): Promise<Uint8Array> {
  const images = t.sim.module.images!;
  const size = (await images.info(IMAGE_OBJECT.user))?.size ?? 0;
  return images.read(IMAGE_OBJECT.user, 0, size);
}

describe("a firmware download resumes where the flash says it stopped", () => {
  it("spreads over sessions, each reading only what it has not read", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 64 * 1024, readBytes: 16 * 1024 } });
    const bytes = hostImage(300_000);
    t.hub.offer("user", APP, bytes);
    for (let i = 0; i < 4; i++) {
      await t.sync();
      expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("downloading");
    }
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
    const offsets = t.hub.reads.map((r) => r.offset);
    expect(new Set(offsets).size).toBe(offsets.length); // no byte read twice
    expect(md5Hex(await stored(t))).toBe(md5Hex(bytes));
  });

  it("continues after a restart from the bytes its flash record counts", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 50_000 } });
    const bytes = hostImage(120_000);
    t.hub.offer("user", APP, bytes);
    await t.sync();
    await t.req({ req: "card.restart" });
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "downloading", pending: true });
    await t.sim.powerCycle();
    await t.sync();
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
    expect(t.hub.bytesRead(APP)).toBe(120_000);
    expect(t.hub.reads.map((r) => r.offset)).toEqual([0, 50_000, 100_000]);
    expect(md5Hex(await stored(t))).toBe(md5Hex(bytes));
  });

  it.each(POWER_LOSS_MODES.flatMap((mode) => [1, 2, 3, 4, 5, 7].map((step) => [mode, step] as const)))(
    "keeps a good image when the power fails (%s) at flash write %i of a download session",
    async (mode, step) => {
      const t = await dfuRig({ powerLoss: true, dfu: { sessionBytes: 40_000, readBytes: 10_000 } });
      const bytes = hostImage(100_000);
      t.hub.offer("user", APP, bytes);
      await t.sync();
      t.sim.armPowerLoss(step, mode, 1000);
      await t.sync().catch(() => undefined);
      await t.clock.advance(2000);
      await t.sim.restoring;
      expect(t.sim.powerLosses).toBe(1);
      for (let i = 0; i < 4; i++) await t.sync();
      expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
      expect(md5Hex(await stored(t))).toBe(md5Hex(bytes));
    },
  );

  it("refuses an image larger than the flash set aside for images before its first byte", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, new Uint8Array(9 * 1024 * 1024));
    await t.sync();
    const status = await t.dfu({ req: "dfu.status" });
    expect(status).toMatchObject({
      mode: "error",
      status: `no room in flash for the ${9 * 1024 * 1024}-byte image`,
    });
    expect(t.hub.reads).toEqual([]);
    expect(t.hub.state("user")).toMatchObject({ mode: "error", errors: 3 });
  });

  it("downloads the host image and the module image in one session within one budget", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 30_000 } });
    t.hub.offer("user", APP, hostImage(20_000));
    t.hub.offer("card", "other$20260101000000.bin", hostImage(20_000, 3));
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
    expect(await t.dfu({ req: "dfu.status", name: "card" })).toMatchObject({
      mode: "downloading",
      status: "downloading: 50% (10000 of 20000 bytes)",
      pending: true,
    });
  });
});
