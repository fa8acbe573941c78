import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { moduleFirmwareImage } from "../../../firmware/dfu/ModuleFirmwareImage.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { hostFirmware } from "./support/hostFirmware.js";

const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");

let hub: TestHub;
beforeEach(async () => {
  hub = await TestHub.start();
});
afterEach(async () => {
  expect(hub.violations).toEqual([]);
  await hub.close();
});

const upload = (type: string, name: string, bytes: Buffer, query = "", as = "developer") =>
  hub.request("PUT", hub.p(`/firmware/${type}/${name}${query}`), {
    payload: bytes,
    contentType: "application/octet-stream",
    as,
  });

async function download(
  type: string,
  filename: string,
): Promise<{ status: number; body: Buffer; type: string }> {
  const res = await hub.app.inject({
    method: "GET",
    url: hub.p(`/firmware/${type}/${encodeURIComponent(filename)}`),
    headers: { authorization: `Bearer ${hub.tokens.viewer}` },
  });
  return { status: res.statusCode, body: res.rawPayload, type: String(res.headers["content-type"]) };
}

describe("firmware images in the hub's store", () => {
  it("a 10 MB image goes up and comes back byte for byte, described by what it carries", async () => {
    const info = {
      org: "Acme",
      product: "Pump",
      description: "pump controller",
      version: "2.4.1",
      built: "Jan 2 2026",
    };
    const bytes = hostFirmware(10 * 1024 * 1024 + 3, info, 4_000_000);
    const put = await upload("host", "pump.bin", bytes, "?notes=faster%20valves");
    expect(put.status).toBe(200);
    expect(put.json).toEqual({
      filename: "pump$20260101000000.bin",
      source: "pump.bin",
      type: "host",
      version: "2.4.1",
      notes: "faster valves",
      info,
      md5: md5(bytes),
      crc32: expect.any(Number) as unknown,
      length: bytes.length,
      created: "2026-01-01T00:00:00Z",
      modified: "2026-01-01T00:00:00Z",
      built: "Jan 2 2026",
      description: "pump controller",
      organization: "Acme",
      product: "Pump",
      published: true,
    });
    const back = await download("host", put.json.filename);
    expect(back.status).toBe(200);
    expect(back.type).toBe("application/octet-stream");
    expect(back.body.length).toBe(bytes.length);
    expect(back.body.equals(bytes)).toBe(true);
  });

  it("takes the version from the query over the image's, and a module image's target and release", async () => {
    const release = { major: 9, minor: 4, patch: 0, build: 17500, built: "Jan 15 2026 10:00:00" };
    const image = Buffer.from(moduleFirmwareImage({ target: "u5", release, size: 50_000 }));
    const put = await upload("notecard", "notecard-u5-9.4.0.bin", image);
    expect(put.json).toMatchObject({
      type: "notecard",
      version: "notecard-u5-9.4.0",
      target: "u5",
      organization: "Blues Wireless",
      product: "Notecard",
      built: "Jan 15 2026 10:00:00",
    });
    hub.clock.advance(1000);
    const named = await upload("host", "x.bin", hostFirmware(200, { version: "1.0" }), "?version=1.0.1-rc");
    expect(named.json.version).toBe("1.0.1-rc");
    const plain = await upload("host", "y", hostFirmware(100));
    expect(plain.json).toMatchObject({ filename: "y$20260101000001" });
    expect(plain.json).not.toHaveProperty("version");
    expect(plain.json).not.toHaveProperty("info");
  });

  it("gives two uploads of one name in one second different stored names", async () => {
    const a = await upload("host", "app.bin", hostFirmware(10));
    const b = await upload("host", "app.bin", hostFirmware(11));
    expect([a.json.filename, b.json.filename]).toEqual(["app$20260101000000.bin", "app$20260101000001.bin"]);
  });

  it("lists images with the definition's filters and orders", async () => {
    const put = async (type: string, name: string, length: number, info: Record<string, unknown>) => {
      const res = await upload(type, name, hostFirmware(length, info));
      await hub.clock.advance(60_000);
      return res.json.filename as string;
    };
    const a = await put("host", "a.bin", 3000, { version: "1.2", product: "Pump", target: "stm32" });
    const b = await put("host", "b.bin", 1000, { version: "1.10", product: "Valve" });
    const c = await put("notecard", "c.bin", 2000, { version: "9.4", product: "Notecard", target: "u5" });
    const names = async (query: string) =>
      ((await hub.get(hub.p(`/firmware${query}`), { as: "viewer" })).json as { filename: string }[]).map(
        (f) => f.filename,
      );
    expect(await names("")).toEqual([c, b, a]); // newest first
    expect(await names("?sortOrder=asc")).toEqual([a, b, c]);
    expect(await names("?sortBy=length&sortOrder=asc")).toEqual([b, c, a]);
    expect(await names("?sortBy=version&sortOrder=asc")).toEqual([a, b, c]); // 1.2 < 1.10 < 9.4
    expect(await names("?sortBy=name&sortOrder=asc")).toEqual([a, b, c]);
    expect(await names("?firmwareType=notecard")).toEqual([c]);
    expect(await names("?product=Valve")).toEqual([b]);
    expect(await names("?target=stm32")).toEqual([a]);
    expect(await names("?version=1.10")).toEqual([b]);
    expect(await names("?filename=a.bin")).toEqual([a]);
    expect(await names(`?filename=${encodeURIComponent(b)}`)).toEqual([b]);
    const md5Of = (await hub.get(hub.p("/firmware?firmwareType=host"))).json[0].md5 as string;
    expect(await names(`?md5=${md5Of}`)).toEqual([b]);
    expect(await names("?unpublished=true")).toEqual([c, b, a]);
    expectErrorBody(await hub.get(hub.p("/firmware?firmwareType=bios")), 400);
    expectErrorBody(await hub.get(hub.p("/firmware?sortBy=size")), 400);
  });

  it("changes a host image's metadata: only the fields given", async () => {
    const put = await upload("host", "app.bin", hostFirmware(1000, { version: "1.0", product: "Pump" }));
    await hub.clock.advance(5000);
    const url = hub.p(`/firmware/host/${encodeURIComponent(put.json.filename)}`);
    const res = await hub.post(url, { notes: "rolled out", info: { channel: "beta" } }, { as: "developer" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      version: "1.0",
      notes: "rolled out",
      info: { channel: "beta" },
      product: "Pump", // what the image says stays
      modified: "2026-01-01T00:00:05Z",
    });
    expect((await hub.post(url, { version: "1.0.1" })).json).toMatchObject({
      version: "1.0.1",
      notes: "rolled out",
    });
    expectErrorBody(await hub.post(url, { notes: 5 }), 400);
    expectErrorBody(await hub.post(hub.p("/firmware/host/nope$20260101000000.bin"), { notes: "x" }), 404);
    expectErrorBody(await hub.post(hub.p("/firmware/notecard/x"), { notes: "x" }), 400);
  });

  it("deletes host images by their stored name", async () => {
    const put = await upload("host", "app.bin", hostFirmware(100));
    const url = hub.p(`/firmware/host/${encodeURIComponent(put.json.filename)}`);
    expect((await hub.delete(url, { as: "developer" })).status).toBe(204);
    expectErrorBody(await hub.delete(url), 404);
    expect((await download("host", put.json.filename)).status).toBe(404);
    expectErrorBody(await hub.delete(hub.p("/firmware/notecard/x")), 400);
  });

  it("refuses empty, oversized and misnamed uploads, and other projects' images", async () => {
    expectErrorBody(await upload("host", "app.bin", Buffer.alloc(0)), 400);
    expectErrorBody(await upload("bios", "app.bin", hostFirmware(10)), 400);
    expectErrorBody(await upload("host", "app.bin", Buffer.alloc(32 * 1024 * 1024 + 1)), 413);
    const put = await upload("host", "app.bin", hostFirmware(10));
    const other = await hub.get(
      `/v1/projects/${hub.otherProjectUid}/firmware/host/${encodeURIComponent(put.json.filename)}`,
      { as: "outsider" },
    );
    expectErrorBody(other, 404);
    expect((await hub.get(`/v1/projects/${hub.otherProjectUid}/firmware`, { as: "outsider" })).json).toEqual(
      [],
    );
  });

  it.each([
    ["PUT", "/firmware/host/app.bin", "developer"],
    ["GET", "/firmware", "viewer"],
    ["GET", "/firmware/host/app$20260101000000.bin", "viewer"],
    ["POST", "/firmware/host/app$20260101000000.bin", "developer"],
    ["DELETE", "/firmware/host/app$20260101000000.bin", "developer"],
  ])("%s %s needs the %s role", async (method, path, role) => {
    await upload("host", "app.bin", hostFirmware(10));
    const body = method === "POST" ? { notes: "n" } : undefined;
    const payload = method === "PUT" ? hostFirmware(10) : undefined;
    const send = (as: string | null) =>
      hub.request(method, hub.p(path), {
        as,
        ...(body ? { body } : {}),
        ...(payload ? { payload, contentType: "application/octet-stream" } : {}),
      });
    expectErrorBody(await send(null), 401);
    expectErrorBody(await send("outsider"), 403);
    if (role === "developer") expectErrorBody(await send("viewer"), 403);
    expect((await send(role)).status).toBeLessThan(300);
  });
});
