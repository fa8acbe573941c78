import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { InProcessHub } from "../../runtime/InProcessHub.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { recordedModule, type Exchange } from "./support/recordedModule.js";
import { hostFirmware } from "../hub/dfu/support/hostFirmware.js";

/**
 * The firmware offer rides on `open` (docs/sync-protocol.md, "Firmware (DFU)"): a module that
 * takes updates asks for it with `firmware_offer`, the hub answers it in the `open` reply as a
 * `firmware` message would be answered, and a session with no firmware news sends no `firmware`
 * message. A hub that leaves the offer out is asked with a `firmware` message, as before.
 */
describe("a session with no firmware news", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  let sync: () => Promise<Exchange[]>;
  let run: () => Promise<Exchange[]>;
  /** Set to leave the offer out of open replies (a hub before it). */
  let withoutOffer: boolean;

  beforeEach(async () => {
    hub = await InProcessHub.start({ clock });
    withoutOffer = false;
    const offerLeftOut = (reply: JsonObject, message: JsonObject): JsonObject => {
      if (!withoutOffer || message["type"] !== "open") return reply;
      const { firmware: _left, ...rest } = reply;
      return rest;
    };
    ({ sim, sync, run } = await recordedModule({
      hub,
      clock,
      seed: "offer",
      alter: { reply: offerLeftOut },
    }));
  });
  afterEach(async () => {
    await sim.close();
    await hub.close();
  });

  const types = (exchanges: Exchange[]) => exchanges.map((e) => e.request["type"]);
  const open = (exchanges: Exchange[]) => exchanges.find((e) => e.request["type"] === "open")!;

  it("asks for the hub's offer in its open and sends no firmware message", async () => {
    for (let i = 0; i < 2; i++) {
      await sim.module.request({ req: "note.add", file: "sensors.qo", body: { i } });
      const session = await sync();
      expect(open(session).request["firmware_offer"]).toBe(true);
      expect(open(session).reply["firmware"]).toEqual({});
      expect(types(session)).not.toContain("firmware");
      if (i === 0) {
        // The device's first session starts its tracker session (reset): the module pushes and
        // closes after the open.
        expect(types(session).slice(-3)).toEqual(["open", "push", "close"]);
      } else {
        // One message: the open carried the push and the close (nothing else was for the module).
        expect(types(session)).toEqual(["open"]);
        expect(open(session).reply["closed"]).toBe(true);
      }
      await clock.advance(5 * 60_000);
    }
  });

  it("takes an update offered through the API from the open reply", async () => {
    await sync();
    const bytes = hostFirmware(2000, { version: "2.0.0" });
    const upload = await hub.request("PUT", `/v1/projects/${hub.projectUid}/firmware/host/app.bin`, bytes);
    expect(upload.status).toBe(200);
    const filename = (upload.body as { filename: string }).filename;
    const device = sim.module.deviceUid;
    const path = `/v1/projects/${hub.projectUid}/dfu/host/update`;
    const update = await hub.request("POST", path, { filename }, { query: { deviceUID: device } });
    expect(update.status).toBe(200);
    await clock.advance(5 * 60_000);
    const session = await sync();
    const offered = open(session).reply["firmware"] as { user?: { name: string } };
    expect(offered.user?.name).toBe(filename);
    expect(types(session)).not.toContain("firmware");
    // The module took the offer: the image is now its host update.
    const status = await sim.module.request({ req: "dfu.status" });
    expect(status?.["body"]).toMatchObject({ name: filename });
    expect(status?.["mode"]).not.toBe("idle");
  });

  it("asks with a firmware message a hub that leaves the offer out", async () => {
    withoutOffer = true;
    const session = await sync();
    expect(open(session).request["firmware_offer"]).toBe(true);
    expect(types(session)).toContain("firmware");
  });

  it("moves its notes when the hub fails to work out its offer", async () => {
    const dfu = hub.services.dfu;
    // Broken for the open's offer and for the firmware message alike.
    dfu.offer = dfu.handleSyncMessage = () => Promise.reject(new Error("the DFU service is broken"));
    await sim.module.request({ req: "note.add", file: "sensors.qo", body: { broken: true } });
    const seen = await run();
    expect(open(seen).reply).not.toHaveProperty("firmware");
    expect(seen.find((e) => e.request["type"] === "push")?.reply).toMatchObject({ merged: 1 });
    expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(0);
    // The firmware message that follows is answered the fault, as before the offer rode on open.
    expect(seen.find((e) => e.request["type"] === "firmware")?.reply["err"]).toMatch(/^\{hub-error\}/);
  });

  it("does not ask for an offer in a mode without updates", async () => {
    await sim.module.request({ req: "hub.set", mode: "minimum" });
    const session = await sync();
    expect(open(session).request).not.toHaveProperty("firmware_offer");
    expect(open(session).reply).not.toHaveProperty("firmware");
    expect(types(session)).not.toContain("firmware");
  });
});
