import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeBase64 } from "../../../core/base64.js";
import type { DfuDevice } from "../../../hub/dfu/DfuService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { DFU_MAX_ERRORS, type FirmwareReply, type ProtocolReply } from "../../../protocol/messages.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { hostFirmware } from "./support/hostFirmware.js";

let hub: TestHub;
let device: DeviceRecord;
let who: DfuDevice;

beforeEach(async () => {
  hub = await TestHub.start();
  device = await hub.device({
    firmwareHost: JSON.stringify({ org: "Acme", product: "Pump", version: "1.0.0", built: "Dec 1 2025" }),
    firmwareModule: JSON.stringify({
      version: "notecard-u5-9.3.1",
      ver_major: 9,
      ver_minor: 3,
      ver_patch: 1,
    }),
  });
  who = { deviceUid: device.uid, projectUid: hub.projectUid };
});
afterEach(async () => {
  expect(hub.violations).toEqual([]);
  await hub.close();
});

const message = (request: Record<string, unknown>): Promise<ProtocolReply> =>
  hub.services.dfu.handleSyncMessage(who, { v: 1, token: "t", ...request });

async function uploaded(type: "host" | "notecard", name: string, bytes: Buffer): Promise<string> {
  const res = await hub.request("PUT", hub.p(`/firmware/${type}/${name}`), {
    payload: bytes,
    contentType: "application/octet-stream",
  });
  expect(res.status).toBe(200);
  return res.json.filename as string;
}

const update = (type: string, filename: string, query = `?deviceUID=${device.uid}`) =>
  hub.post(hub.p(`/dfu/${type}/update${query}`), { filename }, { as: "developer" });

describe("DFU requests", () => {
  it("the update action sets _fw, opens a request, and the firmware message offers the image", async () => {
    const bytes = hostFirmware(5000, { version: "2.0.0", product: "Pump" });
    const filename = await uploaded("host", "pump.bin", bytes);
    expect((await update("host", filename)).status).toBe(200);
    const env = await hub.get(hub.p(`/devices/${device.uid}/environment_variables`));
    expect(env.json.environment_variables).toEqual({ _fw: filename });
    const offer = (await message({ type: "firmware" })) as FirmwareReply;
    expect(offer).toEqual({
      v: 1,
      user: {
        name: filename,
        source: "pump.bin",
        type: "firmware",
        length: 5000,
        md5: createHash("md5").update(bytes).digest("hex"),
        crc32: expect.any(Number) as unknown,
        created: Date.UTC(2026, 0, 1) / 1000,
        modified: Date.UTC(2026, 0, 1) / 1000,
        version: "2.0.0",
        info: { version: "2.0.0", product: "Pump" },
      },
    });
    const status = await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`), { as: "viewer" });
    expect(status.json).toEqual({
      device_uid: device.uid,
      current: { version: "1.0.0", built: "Dec 1 2025", product: "Pump", organization: "Acme" },
      dfu_in_progress: true,
      status: {
        current_version: "1.0.0",
        initiated: "2026-01-01T00:00:00Z",
        requested_version: "2.0.0",
        updates: [
          {
            datetime: "2026-01-01T00:00:00Z",
            phase: "requested",
            status: "pending",
            description: `update to ${filename} requested`,
          },
        ],
      },
    });
  });

  it("read serves byte ranges of the image, base64 with their MD5", async () => {
    const bytes = hostFirmware(300_000);
    const filename = await uploaded("host", "pump.bin", bytes);
    // A device reads only the image its own open request names.
    expect((await update("host", filename)).status).toBe(200);
    const reply = await message({
      type: "read",
      target: "user",
      name: filename,
      offset: 262_000,
      length: 50_000,
    });
    const data = decodeBase64(reply["data"] as string)!;
    expect(Buffer.from(data).equals(bytes.subarray(262_000, 300_000))).toBe(true);
    expect(reply).toMatchObject({
      v: 1,
      name: filename,
      offset: 262_000,
      md5: createHash("md5").update(data).digest("hex"),
    });
    expect(await message({ type: "read", target: "card", name: filename, offset: 0, length: 10 })).toEqual({
      v: 1,
      err: `{dfu-noexist} firmware ${filename} is not the notecard image offered to device ${device.uid}: it has no open notecard update`,
    });
    for (const bad of [
      { target: "host", name: filename, offset: 0, length: 1 },
      { target: "user", name: "", offset: 0, length: 1 },
      { target: "user", name: filename, offset: -1, length: 1 },
      { target: "user", name: filename, offset: 0, length: 256 * 1024 + 1 },
    ]) {
      expect((await message({ type: "read", ...bad }))["err"]).toMatch(/^\{bad-request\} /);
    }
  });

  it("reports from the module fill the device record's dfu object, the history and the health log", async () => {
    const filename = await uploaded("host", "pump.bin", hostFirmware(1000, { version: "2.0.0" }));
    await update("host", filename);
    await hub.clock.advance(60_000);
    const t0 = hub.clock.now() / 1000;
    const state = { type: "user", file: filename, length: 1000, md5: "m", read: 400, began: t0, errors: 0 };
    expect(
      await message({
        type: "dfu",
        target: "user",
        state: { ...state, mode: "downloading", status: "downloading: 40%" },
        updates: [{ seq: 1, time: t0, mode: "downloading", status: "began", file: filename }],
      }),
    ).toEqual({ v: 1 });
    const record = await hub.get(hub.p(`/devices/${device.uid}`));
    expect(record.json.dfu).toEqual({
      user: { ...state, mode: "downloading", status: "downloading: 40%", updated: t0 },
    });
    // The same report again (a lost reply): nothing added twice.
    await message({
      type: "dfu",
      target: "user",
      state: { ...state, mode: "downloading", status: "downloading: 40%" },
      updates: [{ seq: 1, time: t0, mode: "downloading", status: "began", file: filename }],
    });
    await message({
      type: "dfu",
      target: "user",
      state: { ...state, mode: "completed", read: 1000, status: "installed" },
      updates: [
        { seq: 2, time: t0 + 5, mode: "ready", status: "verified", file: filename },
        { seq: 3, time: t0 + 90, mode: "completed", status: "installed", file: filename },
      ],
    });
    const history = await hub.get(hub.p(`/devices/${device.uid}/dfu/host/history`));
    expect(history.json.history).toHaveLength(1);
    expect(history.json.history[0].updates.map((u: { phase: string }) => u.phase)).toEqual([
      "requested",
      "downloading",
      "ready",
      "completed",
    ]);
    expect(history.json.history[0].updates[3]).toEqual({
      datetime: "2026-01-01T00:02:30Z",
      phase: "completed",
      status: "ok",
      description: "installed",
    });
    const status = await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`));
    expect(status.json.dfu_in_progress).toBe(false);
    const log = await hub.get(hub.p(`/devices/${device.uid}/health-log?log_type=dfu_completed`));
    expect(log.json.health_log).toEqual([
      { when: "2026-01-01T00:02:30Z", alert: false, text: `host firmware update completed: ${filename}` },
    ]);
    // A completed request is not offered again, though _fw still names the image.
    expect(await message({ type: "firmware" })).toEqual({ v: 1 });
  });

  it("an error the module gives up on fails the request; a stop cancels it", async () => {
    const filename = await uploaded("host", "pump.bin", hostFirmware(1000));
    await update("host", filename);
    const report = (mode: string, errors: number, seq: number) =>
      message({
        type: "dfu",
        target: "user",
        state: { type: "user", mode, file: filename, errors },
        updates: [{ seq, time: 0, mode, status: mode, file: filename }],
      });
    await report("error", 1, 1);
    expect((await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`))).json.dfu_in_progress).toBe(true);
    await report("error", DFU_MAX_ERRORS, 2);
    const status = (await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`))).json;
    expect(status.dfu_in_progress).toBe(false);
    expect(status.status.updates.at(-1)).toMatchObject({ phase: "error", status: "error" });
    await update("host", filename); // asked again: a new request
    await report("stopped", 0, 3);
    const history = (await hub.get(hub.p(`/devices/${device.uid}/dfu/host/history`))).json.history;
    expect(history).toHaveLength(2);
    expect(history[0].updates.at(-1)).toMatchObject({ phase: "stopped" });
    expect((await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`))).json.dfu_in_progress).toBe(false);
  });

  it("the cancel action ends the request and removes the device's own _fw", async () => {
    const filename = await uploaded("host", "pump.bin", hostFirmware(1000));
    await update("host", filename);
    expect(
      (await hub.post(hub.p(`/dfu/host/cancel?deviceUID=${device.uid}`), undefined, { as: "developer" }))
        .status,
    ).toBe(200);
    expect(
      (await hub.get(hub.p(`/devices/${device.uid}/environment_variables`))).json.environment_variables,
    ).toEqual({});
    expect(await message({ type: "firmware" })).toEqual({ v: 1 });
    const status = (await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`))).json;
    expect(status.status.updates.at(-1)).toMatchObject({
      phase: "cancelled",
      description: "update cancelled",
    });
  });

  it("_fwc at the project level asks every device, and changing it supersedes the open request", async () => {
    const first = await uploaded("notecard", "nc.bin", hostFirmware(100, { version: "9.4.0" }));
    await hub.clock.advance(1000);
    const second = await uploaded("notecard", "nc.bin", hostFirmware(100, { version: "9.5.0" }));
    await hub.put(hub.p("/environment_variables"), { environment_variables: { _fwc: first } });
    expect(((await message({ type: "firmware" })) as FirmwareReply).card?.name).toBe(first);
    expect(((await message({ type: "firmware" })) as FirmwareReply).card?.name).toBe(first);
    await hub.put(hub.p("/environment_variables"), { environment_variables: { _fwc: second } });
    expect(((await message({ type: "firmware" })) as FirmwareReply).card?.name).toBe(second);
    const history = (await hub.get(hub.p(`/devices/${device.uid}/dfu/notecard/history`))).json.history;
    expect(history.map((h: { requested_version: string }) => h.requested_version)).toEqual([
      "9.5.0",
      "9.4.0",
    ]);
    expect(history[1].updates.at(-1)).toMatchObject({
      phase: "cancelled",
      description: `superseded by ${second}`,
    });
    expect(history[0].current_version).toBe("notecard-u5-9.3.1");
    await hub.delete(hub.p("/environment_variables/_fwc"));
    expect(await message({ type: "firmware" })).toEqual({ v: 1 });
  });

  it("a fleet's _fw reaches its devices; a name that is no image fails at once", async () => {
    const fleet = await hub.post(hub.p("/fleets"), { label: "pumps" });
    await hub.put(hub.p(`/devices/${device.uid}/fleets`), { fleet_uids: [fleet.json.uid] });
    await hub.put(hub.p(`/fleets/${fleet.json.uid}/environment_variables`), {
      environment_variables: { _fw: "missing$20260101000000.bin" },
    });
    expect(await message({ type: "firmware" })).toEqual({ v: 1 });
    const status = (await hub.get(hub.p(`/devices/${device.uid}/dfu/host/status`))).json;
    expect(status.status.updates[0]).toMatchObject({
      phase: "requested",
      status: "error",
      description: "_fw names missing$20260101000000.bin, which does not exist",
    });
  });

  it("the actions use the device filters, and the project's status and history list the devices", async () => {
    const tagged = await hub.device({ tags: ["east"] });
    const filename = await uploaded("host", "pump.bin", hostFirmware(100));
    expect((await update("host", filename, "?tag=east")).status).toBe(200);
    const page = (await hub.get(hub.p("/dfu/host/status?pageSize=10"), { as: "viewer" })).json;
    expect(page.has_more).toBe(false);
    expect(
      page.devices.map((d: { device_uid: string; dfu_in_progress: boolean }) => [
        d.device_uid,
        d.dfu_in_progress,
      ]),
    ).toEqual([
      [device.uid, false],
      [tagged.uid, true],
    ]);
    const history = (await hub.get(hub.p(`/dfu/host/history?deviceUID=${tagged.uid}`))).json;
    expect(history.devices).toHaveLength(1);
    expect(history.devices[0].history).toHaveLength(1);
    expectErrorBody(await hub.get(hub.p("/dfu/host/status?sortBy=size")), 400);
  });

  it("refuses updates to images that do not exist, unknown actions and types, and malformed messages", async () => {
    expectErrorBody(await update("host", "nope$20260101000000.bin"), 404);
    expectErrorBody(await hub.post(hub.p("/dfu/host/update"), {}), 400);
    expectErrorBody(await hub.post(hub.p("/dfu/host/rollback"), {}), 400);
    expectErrorBody(await hub.post(hub.p("/dfu/bios/update"), { filename: "x" }), 400);
    expectErrorBody(await hub.get(hub.p(`/devices/${device.uid}/dfu/bios/status`)), 400);
    expect((await message({ type: "teleport" }))["err"]).toMatch(/^\{bad-request\} /);
    expect((await message({ type: "dfu", target: "user", state: {}, updates: [] }))["err"]).toMatch(
      /^\{bad-request\} /,
    );
    expect(
      await hub.services.dfu.handleSyncMessage(
        { deviceUid: "dev:999", projectUid: hub.projectUid },
        { type: "firmware" },
      ),
    ).toEqual({ v: 1, err: `{session-expired} device dev:999 is not in ${hub.projectUid}` });
  });

  it.each([
    ["POST", "/dfu/host/update", "developer"],
    ["POST", "/dfu/host/cancel", "developer"],
    ["GET", "/dfu/host/status", "viewer"],
    ["GET", "/dfu/notecard/history", "viewer"],
    ["GET", "/devices/{D}/dfu/host/status", "viewer"],
    ["GET", "/devices/{D}/dfu/notecard/history", "viewer"],
  ])("%s %s needs the %s role", async (method, path, role) => {
    const filename = await uploaded("host", "pump.bin", hostFirmware(100));
    const url =
      hub.p(path.replace("{D}", device.uid)) + (method === "POST" ? `?deviceUID=${device.uid}` : "");
    const send = (as: string | null) =>
      hub.request(method, url, { as, ...(method === "POST" ? { body: { filename } } : {}) });
    expectErrorBody(await send(null), 401);
    expectErrorBody(await send("outsider"), 403);
    if (role === "developer") expectErrorBody(await send("viewer"), 403);
    expect((await send(role)).status).toBe(200);
  });
});
