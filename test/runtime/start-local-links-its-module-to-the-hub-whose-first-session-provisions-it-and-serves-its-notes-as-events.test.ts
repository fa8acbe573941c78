import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startLocal, type LocalSetup } from "cardsim";

describe("startLocal (what cardsim up runs)", () => {
  const dirs: string[] = [];
  const setups: LocalSetup[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-local-"));
    dirs.push(dir);
    return dir;
  };
  const start = async (dir: string, module: Parameters<typeof startLocal>[0]["module"] = {}) => {
    const setup = await startLocal({ dir, hub: { listen: "127.0.0.1:0", tlsListen: false }, module });
    setups.push(setup);
    return setup;
  };
  afterEach(async () => {
    for (const setup of setups.splice(0).reverse()) await setup.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  const api = async (setup: LocalSetup, path: string) => {
    const { url, credentials } = setup.hub;
    const response = await fetch(`${url}/v1/projects/${credentials.project_uid}${path}`, {
      headers: { authorization: `Bearer ${credentials.token}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  it("links the module to its hub: the first session provisions it, and a synced note is served as an event", async () => {
    const local = await start(await tempDir(), { tcp: false });
    const module = local.module.module;
    const device = module.deviceUid;

    // The session that ran at start reached the hub (no "no ProductUID is set" {sync-error}).
    const status = await module.request({ req: "hub.sync.status" });
    expect(status).not.toHaveProperty("err");
    expect(status?.["status"]).toMatch(/\{sync-end\}/);

    // The device record is the session's, in the hub's product: it has been active.
    const { devices } = (await api(local, "/devices")) as { devices: Record<string, unknown>[] };
    expect(devices).toEqual([
      expect.objectContaining({
        uid: device,
        sku: module.variant.sku,
        product_uid: local.hub.credentials.product_uid,
        last_activity: expect.any(String),
      }),
    ]);

    expect(await module.request({ req: "note.add", file: "readings.qo", body: { temp: 21.5 } })).toEqual({
      total: 1,
    });
    module.sync.request({ why: "explicit" });
    await module.sync.idle();
    expect(module.sync.status().alert).toBeFalsy();
    const { events } = (await api(local, "/events?files=readings.qo")) as {
      events: { device: string; file: string; body: unknown }[];
    };
    expect(events).toEqual([expect.objectContaining({ device, file: "readings.qo", body: { temp: 21.5 } })]);
  });

  it("gives a module without a seed a random identity, kept in its flash; a seed makes it repeatable", async () => {
    const flashDir = join(await tempDir(), "flash");
    const first = await start(await tempDir(), { tcp: false, flashDir });
    const kept = first.module.module.deviceUid;
    await setups.pop()!.close();
    const again = await start(await tempDir(), { tcp: false, flashDir });
    expect(again.module.module.deviceUid).toBe(kept);

    const other = await start(await tempDir(), { tcp: false });
    expect(other.module.module.deviceUid).not.toBe(kept);

    const seeded = await start(await tempDir(), { tcp: false, seed: 42 });
    const seededAgain = await start(await tempDir(), { tcp: false, seed: 42 });
    expect(seededAgain.module.module.deviceUid).toBe(seeded.module.module.deviceUid);
  });
});
