import { describe, expect, it } from "vitest";
import { decodeBase64 } from "../../../core/base64.js";
import { md5Hex } from "../../../core/md5.js";
import { cobsDecode } from "../../../firmware/host/Cobs.js";
import { DFU_MODE_IDLE_MS } from "../../../firmware/dfu/DfuAgent.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

const APP = "app$20260101000000.bin";

async function readyRig(length = 10_000) {
  const t = await dfuRig();
  const bytes = hostImage(length);
  t.hub.offer("user", APP, bytes);
  await t.sync();
  expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  return { t, bytes };
}

describe("dfu.get", () => {
  it("works only in DFU mode, and length:0 checks that it is", async () => {
    const { t } = await readyRig();
    expect((await t.req({ req: "dfu.get", length: 0 }))["err"]).toBe(
      "dfu.get: the module is not in DFU mode; send hub.set mode:dfu first {dfu-not-ready}",
    );
    await t.req({ req: "hub.set", mode: "dfu" });
    expect(await t.dfu({ req: "dfu.get", length: 0 })).toEqual({});
  });

  it("answers {dfu-not-ready} while the module is still ending a session", async () => {
    const { t } = await readyRig();
    // A session on a slow link (5 s a message) is under way when the host asks for DFU mode.
    t.sim.radio.set({ latencyMs: 5000 });
    await t.req({ req: "hub.sync" });
    await t.req({ req: "hub.set", mode: "dfu" });
    expect((await t.req({ req: "dfu.get", length: 0 }))["err"]).toBe(
      "dfu.get: DFU mode is not fully active yet: the module is still ending its hub session {dfu-not-ready}",
    );
    await t.clock.advance(10_000);
    await t.sim.module.sync.idle();
    expect(await t.dfu({ req: "dfu.get", length: 0 })).toEqual({});
  });

  it("reads the image as base64 in chunks that put it back together byte for byte", async () => {
    const { t, bytes } = await readyRig(20_000);
    await t.req({ req: "hub.set", mode: "dfu" });
    const parts: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; offset += 8192) {
      const reply = await t.dfu({ req: "dfu.get", offset, length: 8192 });
      parts.push(decodeBase64(reply["payload"] as string)!);
    }
    expect(parts.map((p) => p.length)).toEqual([8192, 8192, 3616]);
    const joined = new Uint8Array(bytes.length);
    parts.reduce((at, p) => (joined.set(p, at), at + p.length), 0);
    expect(md5Hex(joined)).toBe(md5Hex(bytes));
  });

  it("with binary:true puts the bytes in the binary buffer for card.binary.get", async () => {
    const { t, bytes } = await readyRig(20_000);
    await t.req({ req: "hub.set", mode: "dfu" });
    const reply = await t.dfu({ req: "dfu.get", offset: 4096, length: 4096, binary: true });
    const slice = bytes.subarray(4096, 8192);
    expect(reply).toEqual({ cobs: reply["cobs"], length: 4096, status: md5Hex(slice) });
    expect(await t.req({ req: "card.binary" })).toMatchObject({ length: 4096, status: md5Hex(slice) });
    const line = await t.sim.module.handleLineReply(
      new TextEncoder().encode('{"req":"card.binary.get","length":4096}'),
    );
    expect(JSON.parse(line!.text)).toEqual({ status: md5Hex(slice) });
    expect(cobsDecode(line!.after!.subarray(0, line!.after!.length - 1))).toEqual(slice);
  });

  it("refuses what it cannot read", async () => {
    const { t } = await readyRig(10_000);
    await t.req({ req: "hub.set", mode: "dfu" });
    const err = async (r: Record<string, unknown>) => (await t.req({ req: "dfu.get", ...r }))["err"];
    expect(await err({ length: -1 })).toBe("dfu.get: length must not be negative");
    expect(await err({ length: 1, offset: -5 })).toBe("dfu.get: offset must not be negative");
    expect(await err({ length: 1, offset: 10_000 })).toBe(
      "dfu.get: offset 10000 is past the end of the 10000-byte image",
    );
    expect(await err({ length: 8193 })).toBe(
      "dfu.get: at most 8192 bytes can be read at a time, not 8193 {too-big}",
    );
    expect(await t.dfu({ req: "dfu.get", offset: 9990, length: 100 })).toEqual({
      payload: expect.stringMatching(/^[A-Za-z0-9+/]{14}==$/) as unknown,
      status: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
    });
  });

  it("has nothing to read before the image is ready", async () => {
    const t = await dfuRig();
    await t.req({ req: "hub.set", mode: "dfu" });
    expect((await t.req({ req: "dfu.get", length: 10 }))["err"]).toBe(
      "dfu.get: no host firmware is ready to read (dfu.status mode is idle)",
    );
  });

  it("on the satellite module reads base64 only (it has no binary buffer)", async () => {
    const t = await dfuRig({ variant: "ntn" });
    t.hub.offer("user", APP, hostImage(1000));
    await t.sync();
    await t.req({ req: "hub.set", mode: "dfu" });
    expect((await t.req({ req: "dfu.get", length: 10, binary: true }))["err"]).toBe(
      "request not supported for ntn {not-supported}",
    );
    expect(await t.dfu({ req: "dfu.get", length: 10 })).toHaveProperty("payload");
  });
});

describe("DFU mode ends by itself", () => {
  it("after 15 minutes without dfu.get, back to the mode before it", async () => {
    const { t } = await readyRig();
    await t.req({ req: "hub.set", mode: "continuous" });
    await t.sim.module.sync.idle();
    await t.req({ req: "hub.set", mode: "dfu" });
    await t.clock.advance(DFU_MODE_IDLE_MS - 60_000);
    await t.dfu({ req: "dfu.get", length: 100 }); // activity: another 15 minutes
    await t.clock.advance(DFU_MODE_IDLE_MS - 60_000);
    expect(await t.req({ req: "hub.get" })).toMatchObject({ mode: "dfu" });
    await t.clock.advance(60_001);
    expect(await t.req({ req: "hub.get" })).toMatchObject({ mode: "continuous" });
    expect((await t.req({ req: "dfu.get", length: 0 }))["err"]).toMatch(/\{dfu-not-ready\}$/);
  });

  it("after a restart in DFU mode too (the quiet spell starts at the boot)", async () => {
    const { t } = await readyRig();
    await t.req({ req: "hub.set", mode: "dfu" });
    await t.sim.powerCycle();
    await t.clock.advance(DFU_MODE_IDLE_MS + 1);
    expect(await t.req({ req: "hub.get" })).toMatchObject({ mode: "periodic" });
  });

  it("not when the host finishes first with dfu-completed", async () => {
    const { t } = await readyRig();
    await t.req({ req: "hub.set", mode: "dfu" });
    await t.req({ req: "hub.set", mode: "dfu-completed" });
    await t.req({ req: "hub.set", mode: "minimum" });
    await t.clock.advance(DFU_MODE_IDLE_MS + 1);
    expect(await t.req({ req: "hub.get" })).toMatchObject({ mode: "minimum" });
  });
});
