import { describe, expect, it } from "vitest";
import { decodeBase64 } from "../../../core/base64.js";
import { md5Hex } from "../../../core/md5.js";
import { DFU_GET_MAX } from "../../../firmware/requests/dfu.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

/**
 * `dfu.get` as IAP hosts use it. References: the vendor's dfu.get documentation and the
 * schema's binary sample (dfu.get.rsp.notecard.api.json, `"length": 8192`): at most 8192 bytes a
 * request; the vendor's IAP example (an STM32 host on note-c: `NoteRequestResponse(
 * NoteNewRequest("dfu.get"))` to wait for DFU mode, then per chunk `JGetString(rsp, "status")`
 * compared with the chunk's MD5); note-python's `dfu.isDFUModeActive` (`{"req":"dfu.get"}`, no
 * length, success when the reply has no `err`). Our spec keeps dfu.get to `dfu` mode.
 */
async function inDfuMode(length: number) {
  const t = await dfuRig();
  const bytes = hostImage(length);
  t.hub.offer("user", "app$20260101000000.bin", bytes);
  await t.sync();
  await t.req({ req: "hub.set", mode: "dfu" });
  return { t, bytes };
}

describe("dfu.get for IAP hosts", () => {
  it("a bare dfu.get (no length) is the DFU-mode probe hosts send", async () => {
    const t = await dfuRig();
    expect((await t.req({ req: "dfu.get" }))["err"]).toMatch(/\{dfu-not-ready\}$/);
    await t.req({ req: "hub.set", mode: "dfu" });
    expect(await t.req({ req: "dfu.get" })).toEqual({});
  });

  it("reads at most 8192 bytes a request", async () => {
    const { t } = await inDfuMode(20_000);
    expect(DFU_GET_MAX).toBe(8192);
    expect(decodeBase64((await t.req({ req: "dfu.get", length: 8192 }))["payload"] as string)).toHaveLength(
      8192,
    );
    expect((await t.req({ req: "dfu.get", length: 8193 }))["err"]).toBe(
      "dfu.get: at most 8192 bytes can be read at a time, not 8193 {too-big}",
    );
    expect((await t.req({ req: "dfu.get", length: 8193, binary: true }))["err"]).toMatch(/\{too-big\}$/);
  });

  it("gives each base64 chunk's MD5 as status, which the IAP example checks before writing it", async () => {
    const { t, bytes } = await inDfuMode(5000);
    for (let offset = 0; offset < bytes.length; offset += 2048) {
      const length = Math.min(2048, bytes.length - offset);
      const reply = await t.req({ req: "dfu.get", offset, length });
      const chunk = decodeBase64(reply["payload"] as string)!;
      expect(chunk).toEqual(bytes.subarray(offset, offset + length));
      expect(reply["status"]).toBe(md5Hex(chunk));
    }
  });
});
