import { describe, expect, it } from "vitest";
import { DFU_MAX_ERRORS } from "../../../protocol/messages.js";
import { IMAGE_OBJECT } from "../../../firmware/dfu/DfuAgent.js";
import { moduleFirmwareImage } from "../../../firmware/dfu/ModuleFirmwareImage.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

/**
 * The module DFU status modes of the spec (idle, downloading, ready, error, outboard-ready,
 * completed) and its two rows (`stop`, `stop` with `err`), each reached on the fake clock with
 * the scripted hub; every reply is checked against the request's schema.
 */
const APP = "app$20260101000000.bin";

describe("dfu.status walks the module DFU status table", () => {
  it("is idle with downloads on before the hub offers anything", async () => {
    const t = await dfuRig();
    expect(await t.dfu({ req: "dfu.status" })).toEqual({
      mode: "idle",
      status: "no firmware update",
      on: true,
    });
    expect(await t.dfu({ req: "dfu.status", name: "card" })).toMatchObject({ mode: "idle", on: true });
    await t.sync();
    expect(t.hub.reports).toEqual([]); // nothing happened: nothing to report
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("idle");
  });

  it("idle -> downloading: a session starts the download, and status gives progress and the image", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 40_000, readBytes: 16_000 } });
    const image = t.hub.offer("user", APP, hostImage(100_000), { version: "2.1.0", notes: "fixes" });
    await t.sync();
    const status = await t.dfu({ req: "dfu.status" });
    expect(status).toMatchObject({
      mode: "downloading",
      status: "downloading: 40% (40000 of 100000 bytes)",
      on: true,
      pending: true,
      body: image,
    });
    expect(t.hub.state("user")).toMatchObject({
      mode: "downloading",
      file: APP,
      read: 40_000,
      length: 100_000,
    });
    expect(t.hub.reads.map((r) => [r.offset, r.length])).toEqual([
      [0, 16_000],
      [16_000, 16_000],
      [32_000, 8_000],
    ]);
  });

  it("downloading -> ready: later sessions finish the download and the MD5 is checked", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 40_000 } });
    const image = t.hub.offer("user", APP, hostImage(100_000));
    for (let i = 0; i < 3; i++) await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toEqual({
      mode: "ready",
      status: "downloaded and verified; ready for the host (dfu.get)",
      body: image,
      on: true,
    });
    expect(t.hub.bytesRead(APP)).toBe(100_000);
    expect(t.hub.steps("user").map((s) => s.mode)).toEqual(["downloading", "ready"]);
    expect(t.hub.state("user")).toMatchObject({ mode: "ready", read: 100_000 });
    // A ready image is not downloaded again.
    const reads = t.hub.reads.length;
    await t.sync();
    expect(t.hub.reads.length).toBe(reads);
  });

  it("downloading -> error: an image whose MD5 is not the hub's fails, is retried, and stays in error after three tries", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(5000), { md5: "0".repeat(32) });
    await t.sync();
    const status = await t.dfu({ req: "dfu.status" });
    expect(status["mode"]).toBe("error");
    expect(status["status"]).toMatch(/^the downloaded image's MD5 [0-9a-f]{32} is not the hub's 0{32}$/);
    expect(t.sim.module.images!.has(IMAGE_OBJECT.user)).toBe(false);
    await t.sync();
    await t.sync();
    expect(t.hub.state("user")).toMatchObject({ mode: "error", errors: DFU_MAX_ERRORS });
    const reads = t.hub.reads.length;
    await t.sync();
    expect(t.hub.reads.length).toBe(reads); // given up
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("error");
  });

  it("ready -> completed: the host's stop after reading the image completes the update and deletes it", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(3000));
    await t.sync();
    expect(await t.req({ req: "hub.set", mode: "dfu" })).toEqual({});
    expect(await t.dfu({ req: "dfu.get", length: 1000 })).toHaveProperty("payload");
    expect(await t.req({ req: "hub.set", mode: "dfu-completed" })).toEqual({});
    const stopped = await t.dfu({ req: "dfu.status", stop: true, status: "flashed v2" });
    expect(stopped).toMatchObject({ mode: "completed", status: "flashed v2", on: true });
    expect(t.sim.module.images!.has(IMAGE_OBJECT.user)).toBe(false);
    await t.sync();
    expect(t.hub.steps("user").at(-1)).toMatchObject({ mode: "completed", status: "flashed v2", file: APP });
  });

  it("ready -> outboard-ready -> completed: with card.dfu on, the image is written to the host by itself", async () => {
    const t = await dfuRig();
    expect(await t.dfu({ req: "card.dfu", name: "stm32", on: true })).toEqual({ name: "stm32" });
    t.hub.offer("user", APP, hostImage(20_000));
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "outboard-ready" });
    // 20 kB at 115200 baud: about 1.8 s of wire time.
    await t.clock.advance(5000);
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "completed",
      status: "the host was updated by an outboard update (stm32)",
    });
    await t.sync();
    expect(t.hub.steps("user").map((s) => s.mode)).toEqual([
      "downloading",
      "outboard-ready",
      "outboard-ready",
      "completed",
    ]);
  });

  it("downloading -> completed for the module's own firmware: it installs the image and restarts into it", async () => {
    const t = await dfuRig();
    const release = { major: 9, minor: 4, patch: 0, build: 17500, built: "Jan 15 2026 10:00:00" };
    t.hub.offer("card", "notecard-9.4.0$20260101000000.bin", moduleFirmwareImage({ target: "u5", release }));
    await t.sync();
    expect(await t.dfu({ req: "dfu.status", name: "card" })).toMatchObject({
      mode: "completed",
      status: "installed notecard-9.4.0.17500; the module restarts into it",
    });
    expect(t.sim.module.images!.has(IMAGE_OBJECT.card)).toBe(false);
  });

  it("any -> stop: a download in progress ends idle, its image deleted, and the hub hears it was stopped", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 10_000 } });
    t.hub.offer("user", APP, hostImage(50_000));
    await t.sync();
    expect(t.sim.module.images!.has(IMAGE_OBJECT.user)).toBe(true);
    const stopped = await t.dfu({ req: "dfu.status", stop: true });
    expect(stopped).toMatchObject({ mode: "idle", status: "the host stopped the update", on: true });
    expect(stopped).not.toHaveProperty("pending");
    expect(t.sim.module.images!.has(IMAGE_OBJECT.user)).toBe(false);
    await t.sync();
    expect(t.hub.steps("user").at(-1)).toMatchObject({ mode: "stopped", file: APP });
    // The host said no to this image: it is not downloaded again though the hub still offers it.
    const reads = t.hub.reads.length;
    await t.sync();
    expect(t.hub.reads.length).toBe(reads);
  });

  it("any -> stop with err: the update ends in error with the host's text, and the hub hears it failed for good", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(3000));
    await t.sync();
    const stopped = await t.dfu({ req: "dfu.status", stop: true, err: "bad signature" });
    expect(stopped).toMatchObject({ mode: "error", status: "bad signature" });
    await t.sync();
    expect(t.hub.state("user")).toMatchObject({
      mode: "error",
      status: "bad signature",
      errors: DFU_MAX_ERRORS,
    });
    expect(t.hub.steps("user").at(-1)).toMatchObject({ mode: "error", status: "bad signature" });
  });

  it("completed or error -> stop: the state is cleared to idle", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(3000));
    await t.sync();
    await t.dfu({ req: "dfu.status", stop: true });
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("completed");
    expect(await t.dfu({ req: "dfu.status", stop: true })).toEqual({
      mode: "idle",
      status: "no firmware update",
      on: true,
    });
  });
});
