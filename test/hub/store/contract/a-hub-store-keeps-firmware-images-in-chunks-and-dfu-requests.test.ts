import { afterEach, beforeEach, expect, it } from "vitest";
import type { FirmwareRecord } from "../../../../hub/store/FirmwareStore.js";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { FIRMWARE_CHUNK_BYTES } from "../../../../hub/store/sqlite/SqliteFirmwareStore.js";
import { describeEachBackend } from "./support/backends.js";
import { PROJECT, seedProject, T0, USER } from "./support/seed.js";

const imageRecord = (filename: string, length: number, created = T0): FirmwareRecord => ({
  projectUid: PROJECT,
  type: "host",
  filename,
  source: "app.bin",
  length,
  md5: "0".repeat(32),
  crc32: 0xffffffff,
  created,
  modified: created,
  version: "1.0.0",
  notes: null,
  info: { version: "1.0.0" },
  image: { built: "today" },
  target: null,
  published: true,
  createdBy: USER,
});

describeEachBackend("a hub store's firmware images and DFU requests", (backend) => {
  let store: HubStore;
  const firmware = () => store.firmware;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
  });
  afterEach(() => backend.dispose(store));

  it("keeps an image's bytes across chunks and reads any range of them", async () => {
    const length = FIRMWARE_CHUNK_BYTES * 2 + 100;
    const bytes = new Uint8Array(length).map((_, i) => (i * 7) % 251);
    await store.transaction(async () => {
      await firmware().putContent(PROJECT, "host", "app$1.bin", bytes);
      await firmware().putImage(imageRecord("app$1.bin", length));
    });
    await expect(firmware().putImage(imageRecord("app$1.bin", length))).rejects.toMatchObject({
      code: "conflict",
    });
    const from = FIRMWARE_CHUNK_BYTES - 3;
    expect([...(await firmware().readImage(PROJECT, "host", "app$1.bin", from, 10))!]).toEqual([
      ...bytes.subarray(from, from + 10),
    ]);
    expect((await firmware().readImage(PROJECT, "host", "app$1.bin", length - 4, 100))!.length).toBe(4);
    expect((await firmware().readImage(PROJECT, "host", "app$1.bin", length + 5, 10))!.length).toBe(0);
    expect(await firmware().readImage(PROJECT, "host", "none", 0, 10)).toBeUndefined();
    expect(await firmware().getImage(PROJECT, "host", "app$1.bin")).toEqual(imageRecord("app$1.bin", length));
  });

  it("lists images oldest first by type, changes their metadata and deletes them", async () => {
    await firmware().putImage(imageRecord("b", 0, T0 + 1));
    await firmware().putImage(imageRecord("a", 0, T0 + 2));
    await firmware().putImage({ ...imageRecord("n", 0), type: "notecard" });
    expect((await firmware().listImages(PROJECT)).map((i) => i.filename)).toEqual(["n", "b", "a"]);
    expect((await firmware().listImages(PROJECT, "host")).map((i) => i.filename)).toEqual(["b", "a"]);
    const changed = await firmware().updateImage(PROJECT, "host", "b", {
      notes: "hi",
      info: null,
      modified: T0 + 9,
    });
    expect(changed).toMatchObject({
      notes: "hi",
      info: null,
      image: { built: "today" },
      modified: T0 + 9,
      version: "1.0.0",
    });
    expect(await firmware().updateImage(PROJECT, "host", "none", { notes: "x" })).toBeUndefined();
    expect(await firmware().deleteImage(PROJECT, "host", "b")).toBe(true);
    expect(await firmware().deleteImage(PROJECT, "host", "b")).toBe(false);
  });

  it("keeps a device's update requests newest first and changes their state and history", async () => {
    const request = {
      projectUid: PROJECT,
      deviceUid: "dev:1",
      type: "host" as const,
      filename: "a",
      initiated: T0,
      currentVersion: "0.9",
      requestedVersion: "1.0",
      state: "pending" as const,
      updates: [],
      source: "api" as const,
      seq: 0,
    };
    const first = await firmware().addRequest(request);
    const second = await firmware().addRequest({ ...request, filename: "b" });
    expect(second.id).toBeGreaterThan(first.id);
    await firmware().updateRequest(first.id, { state: "failed" });
    await firmware().updateRequest(second.id, {
      updates: [{ when: T0, phase: "download", status: "ok", description: "" }],
      seq: 3,
    });
    expect(await firmware().latestRequest(PROJECT, "dev:1", "host")).toMatchObject({
      id: second.id,
      state: "pending",
      seq: 3,
      updates: [{ phase: "download" }],
    });
    expect(
      (await firmware().listRequests(PROJECT, "dev:1", "host")).map((r) => [r.filename, r.state]),
    ).toEqual([
      ["b", "pending"],
      ["a", "failed"],
    ]);
    expect(await firmware().latestRequest(PROJECT, "dev:1", "notecard")).toBeUndefined();
  });
});
