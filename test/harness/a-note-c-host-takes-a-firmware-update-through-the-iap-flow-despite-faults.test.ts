import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { NoteCIap, type NoteCIapOptions } from "../../harness/host/NoteCIap.js";
import { Scenario } from "../../harness/Scenario.js";
import { DfuBridgeHub } from "../hub/dfu/support/DfuBridgeHub.js";
import { hostFirmware } from "../hub/dfu/support/hostFirmware.js";

/**
 * A whole host firmware update on the scenario clock: the image uploaded to the hub (its real
 * firmware store and DFU service, behind a scripted sync session), the update requested, the
 * module downloading it over its sessions (every 10 minutes here, standing in for the sync
 * schedule), and a note-c host running the IAP flow (NoteCIap) over the serial link. Faults are
 * injected at every stage; the host and the hub must end in the right states.
 */
const SESSION_MS = 10 * 60_000;
const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");

let sc: Scenario | undefined;
let bridge: DfuBridgeHub | undefined;
afterEach(async () => {
  await sc?.close();
  await bridge?.close();
  sc = bridge = undefined;
});

async function update(
  options: { seed?: string; bytes?: number; onSession?: (n: number) => Promise<void> } = {},
) {
  const hub = (bridge = await DfuBridgeHub.start());
  const scenario = (sc = await Scenario.start({
    flash: true,
    timeKnown: true,
    seed: options.seed ?? "iap",
    hub: (clock) => {
      hub.attach(clock);
      return { link: hub.link(), product: hub.productUid };
    },
    dfu: { sessionBytes: 64 * 1024, readBytes: 16 * 1024 },
  }));
  // The first session registers the device with the hub.
  await scenario.run(syncOnce(scenario));
  const device = scenario.module.deviceUid;
  const image = hostFirmware(options.bytes ?? 150_000, { product: "Pump", version: "2.0.0" });
  const filename = await hub.upload("host", "pump.bin", image);
  await hub.requestUpdate("host", filename, device);
  let sessions = 0;
  const tick = () => {
    scenario.clock.setTimer(() => {
      sessions++;
      void (options.onSession?.(sessions) ?? Promise.resolve()).then(() => {
        scenario.module.sync.request({ why: "outbound" });
        tick();
      });
    }, SESSION_MS);
  };
  tick();
  return { scenario, hub, device, image, filename, sessions: () => sessions };
}

async function syncOnce(scenario: Scenario): Promise<void> {
  scenario.module.sync.request({ why: "explicit" });
  await scenario.module.sync.idle();
}

async function iap(scenario: Scenario, options: NoteCIapOptions = {}) {
  const host = scenario.attachNoteC();
  const flow = new NoteCIap(host.noteC, scenario.clock, { pollMs: 60_000, ...options });
  const result = await scenario.run(flow.run(), { timeout: 6 * 3600_000, what: "the IAP flow" });
  // The module tells the hub how it ended at its next session.
  await scenario.advance(SESSION_MS + 1000);
  await scenario.run(scenario.module.sync.idle());
  return result;
}

describe("a note-c host takes a firmware update through the IAP flow", () => {
  it.each([false, true])(
    "with binary reads %s: the module downloads over several sessions across a power loss, the host reads and verifies the image, and the hub shows the update completed",
    async (binary) => {
      const { scenario, hub, device, image, filename, sessions } = await update({
        seed: `iap-${binary}`,
        // The power fails in the middle of the second download session.
        onSession: async (n) => {
          if (n === 2) await scenario.world.powerLossAt(3, { offMs: 5000 });
        },
      });
      // 8192 bytes a dfu.get at most (the vendor's documentation), binary or base64.
      const result = await iap(scenario, { binary, chunk: 8192 });
      expect(result.outcome).toBe("installed");
      expect(result.md5).toBe(md5(image));
      expect(Buffer.from(result.image!).equals(image)).toBe(true);
      expect(result.body).toMatchObject({
        name: filename,
        length: image.length,
        md5: md5(image),
        version: "2.0.0",
      });
      expect(scenario.powerLosses).toBe(1);
      expect(sessions()).toBeGreaterThanOrEqual(3);
      expect(result.steps.filter((s) => s === "dfu.get").length).toBeGreaterThan(
        image.length / (binary ? 32768 : 8192),
      );
      if (binary) expect(result.steps).toContain("card.binary.get");
      const status = await scenario.module.request({ req: "dfu.status" });
      expect(status).toMatchObject({ mode: "completed", status: "installed 2.0.0" });
      expect(await scenario.module.request({ req: "hub.get" })).toMatchObject({ mode: "periodic" });
      const { request, record, log } = await hub.dfuOf("host", device);
      expect(request?.state).toBe("completed");
      expect(request?.updates.map((u) => u.phase)).toEqual([
        "requested",
        "downloading",
        "ready",
        "completed",
      ]);
      expect(record).toMatchObject({
        user: { mode: "completed", file: filename, status: "installed 2.0.0" },
      });
      expect(log).toHaveLength(1);
      scenario.ignore(() => true);
      await scenario.finish();
      sc = undefined;
    },
  );

  it("a chunk damaged on its way from the hub is read again, and the update completes", async () => {
    const { scenario, hub, device, image } = await update({ seed: "damaged-link" });
    let damaged = 0;
    hub.damage = (offset) => offset === 32 * 1024 && damaged++ === 0;
    const result = await iap(scenario);
    expect(damaged).toBe(2);
    expect(result.outcome).toBe("installed");
    expect(result.md5).toBe(md5(image));
    expect((await hub.dfuOf("host", device)).request?.state).toBe("completed");
  });

  it("an image damaged in the host's flash fails verification: the host stops with err and the hub marks it failed", async () => {
    const { scenario, hub, device } = await update({ seed: "damaged-flash", bytes: 40_000 });
    const result = await iap(scenario, {
      write: (offset, bytes) => (offset === 8192 ? bytes.map((b, i) => (i === 0 ? b ^ 1 : b)) : bytes),
    });
    expect(result.outcome).toBe("failed");
    expect(result.error).toMatch(/^image MD5 [0-9a-f]{32} does not match [0-9a-f]{32}$/);
    expect(await scenario.module.request({ req: "dfu.status" })).toMatchObject({
      mode: "error",
      status: result.error,
    });
    const { request, record } = await hub.dfuOf("host", device);
    expect(request?.state).toBe("failed");
    expect(request?.updates.at(-1)).toMatchObject({ phase: "error", description: result.error });
    expect(record).toMatchObject({ user: { mode: "error", errors: 3 } });
  });

  it("a hub that cancels mid-download leaves the host with nothing to install", async () => {
    const { scenario, hub, device } = await update({
      seed: "cancel",
      onSession: async (n) => {
        if (n === 2) await hub.cancel("host", device);
      },
    });
    const result = await iap(scenario, { waitMs: 3 * 3600_000 });
    expect(result.outcome).toBe("nothing");
    expect(await scenario.module.request({ req: "dfu.status" })).toMatchObject({
      mode: "idle",
      status: "the hub cancelled the update",
    });
    expect(scenario.module.images!.list()).toEqual([]);
    const { request } = await hub.dfuOf("host", device);
    expect(request?.state).toBe("cancelled");
    expect(request?.updates.map((u) => u.phase)).toEqual([
      "requested",
      "downloading",
      "cancelled",
      "cancelled",
    ]);
  });

  it("a module that loses power while the host reads comes back in DFU mode and the host finishes", async () => {
    const { scenario, hub, device, image } = await update({ seed: "power-during-reads", bytes: 60_000 });
    let armed = false;
    const result = await iap(scenario, {
      afterChunk: async (offset) => {
        if (offset >= 24_576 && !armed) {
          armed = true;
          await scenario.world.powerLoss({ offMs: 3000 });
        }
      },
    });
    expect(result.outcome).toBe("installed");
    expect(result.md5).toBe(md5(image));
    expect(scenario.powerLosses).toBe(1);
    expect((await hub.dfuOf("host", device)).request?.state).toBe("completed");
  });
});
