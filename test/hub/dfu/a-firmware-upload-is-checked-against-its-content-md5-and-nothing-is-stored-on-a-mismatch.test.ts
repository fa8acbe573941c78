import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { hostFirmware } from "./support/hostFirmware.js";

let hub: TestHub;
beforeEach(async () => {
  hub = await TestHub.start();
});
afterEach(async () => {
  expect(hub.violations).toEqual([]);
  await hub.close();
});

const digest = (b: Uint8Array) => createHash("md5").update(b).digest();

const upload = (bytes: Buffer, contentMd5?: string) =>
  hub.request("PUT", hub.p("/firmware/host/pump.bin"), {
    payload: bytes,
    contentType: "application/octet-stream",
    as: "developer",
    ...(contentMd5 !== undefined ? { headers: { "content-md5": contentMd5 } } : {}),
  });

const stored = async () => (await hub.get(hub.p("/firmware"), { as: "viewer" })).json as unknown[];

describe("an upload's Content-MD5", () => {
  const bytes = hostFirmware(70_000, { version: "2.0.0" });
  const damaged = Buffer.from(bytes);
  damaged[12_345]! ^= 0x01;

  it("is taken in RFC 1864's base64 form and as 32 hex digits, either case", async () => {
    for (const header of [
      digest(bytes).toString("base64"),
      digest(bytes).toString("hex"),
      digest(bytes).toString("hex").toUpperCase(),
    ]) {
      const res = await upload(bytes, header);
      expect(res.status).toBe(200);
      expect(res.json.md5).toBe(digest(bytes).toString("hex"));
    }
    expect(await stored()).toHaveLength(3);
  });

  it("refuses a body that does not match it, saying both digests, and stores nothing", async () => {
    for (const header of [digest(bytes).toString("base64"), digest(bytes).toString("hex")]) {
      const res = await upload(damaged, header);
      expectErrorBody(res, 400);
      expect(res.json.err).toBe(
        `the image's MD5 is ${digest(damaged).toString("hex")}, not the ${digest(bytes).toString("hex")} its Content-MD5 says: it was damaged on its way (nothing was stored)`,
      );
    }
    expect(await stored()).toEqual([]);
  });

  it("refuses a header that is no MD5 digest, and stores nothing", async () => {
    const b64 = digest(bytes).toString("base64");
    for (const header of [
      "",
      "yes",
      b64.slice(0, -2), // no padding
      `${b64.slice(0, 21)}B==`, // not canonical base64 (bits in the padding)
      digest(bytes).toString("hex").slice(1),
      `${digest(bytes).toString("hex")}0`,
      createHash("sha256").update(bytes).digest("base64"),
      `${b64}, ${b64}`, // the header twice
    ]) {
      const res = await upload(bytes, header);
      expectErrorBody(res, 400);
      expect(res.json.err).toMatch(
        /^Content-MD5 must be the base64 of the image's 16-byte MD5 digest \(RFC 1864/,
      );
    }
    expect(await stored()).toEqual([]);
  });
});
