import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeBase64 } from "../../../core/base64.js";
import type { DfuDevice } from "../../../hub/dfu/DfuService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import { TestHub } from "../support/hubFixture.js";
import { hostFirmware } from "./support/hostFirmware.js";

let hub: TestHub;
let device: DeviceRecord;
let other: DeviceRecord;

beforeEach(async () => {
  hub = await TestHub.start();
  device = await hub.device();
  other = await hub.device();
});
afterEach(async () => {
  expect(hub.violations).toEqual([]);
  await hub.close();
});

const who = (d: DeviceRecord): DfuDevice => ({ deviceUid: d.uid, projectUid: hub.projectUid });

const read = (d: DeviceRecord, target: "user" | "card", name: string): Promise<ProtocolReply> =>
  hub.services.dfu.handleSyncMessage(who(d), { v: 1, type: "read", target, name, offset: 0, length: 16 });

async function uploaded(type: "host" | "notecard", name: string, bytes: Buffer): Promise<string> {
  const res = await hub.request("PUT", hub.p(`/firmware/${type}/${name}`), {
    payload: bytes,
    contentType: "application/octet-stream",
  });
  expect(res.status).toBe(200);
  return res.json.filename as string;
}

const update = (type: string, filename: string, d: DeviceRecord) =>
  hub.post(hub.p(`/dfu/${type}/update?deviceUID=${d.uid}`), { filename }, { as: "developer" });

describe("a device's firmware reads", () => {
  it("are refused for any image of the project no update offers that device", async () => {
    const secret = await uploaded("host", "secret.bin", hostFirmware(1000, { version: "9.9.9" }));
    expect(await read(device, "user", secret)).toEqual({
      v: 1,
      err: `{dfu-noexist} firmware ${secret} is not the host image offered to device ${device.uid}: it has no open host update`,
    });
    // Offered to another device of the project: still not this one's.
    expect((await update("host", secret, other)).status).toBe(200);
    expect((await read(device, "user", secret))["err"]).toMatch(
      /^\{dfu-noexist\} .* not the host image offered/,
    );
    expect((await read(other, "user", secret))["data"]).toEqual(expect.any(String));
  });

  it("serve the image of the device's open request, and only of its type", async () => {
    const offered = hostFirmware(1000, { version: "2.0.0" });
    const mine = await uploaded("host", "mine.bin", offered);
    const notMine = await uploaded("host", "not-mine.bin", hostFirmware(1000, { version: "3.0.0" }));
    expect((await update("host", mine, device)).status).toBe(200);
    const reply = await read(device, "user", mine);
    expect(Buffer.from(decodeBase64(reply["data"] as string)!).equals(offered.subarray(0, 16))).toBe(true);
    expect(await read(device, "user", notMine)).toEqual({
      v: 1,
      err: `{dfu-noexist} firmware ${notMine} is not the host image offered to device ${device.uid}: its open update is to ${mine}`,
    });
    // The host image named as module firmware: the device has no module update open.
    expect((await read(device, "card", mine))["err"]).toMatch(
      /^\{dfu-noexist\} firmware .* is not the notecard image offered to device .*: it has no open notecard update/,
    );
  });

  it("end with the request: a cancelled or superseded update's image is refused", async () => {
    const first = await uploaded("host", "first.bin", hostFirmware(1000, { version: "2.0.0" }));
    const second = await uploaded("host", "second.bin", hostFirmware(1000, { version: "3.0.0" }));
    expect((await update("host", first, device)).status).toBe(200);
    expect((await read(device, "user", first))["data"]).toEqual(expect.any(String));
    expect((await update("host", second, device)).status).toBe(200);
    expect((await read(device, "user", first))["err"]).toMatch(/its open update is to /);
    expect((await read(device, "user", second))["data"]).toEqual(expect.any(String));
    const cancel = await hub.post(hub.p(`/dfu/host/cancel?deviceUID=${device.uid}`), {}, { as: "developer" });
    expect(cancel.status).toBe(200);
    expect((await read(device, "user", second))["err"]).toMatch(/it has no open host update$/);
  });
});
