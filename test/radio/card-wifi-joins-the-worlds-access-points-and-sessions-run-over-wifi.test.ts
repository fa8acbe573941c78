/**
 * card.wifi and the WiFi radio model. References:
 * - card.wifi.req.notecard.api.json (notecard-schema): `ssid`, `password` (`-` clears), `text`
 *   (`["FIRST-SSID","FIRST-PASSWORD"],["SECOND-SSID","SECOND-PASSWORD"]`), `name` (a trailing
 *   `-` appends the MAC's last four digits), `org`, `start`; skus CELL+WIFI, SKYLO, WIFI; the
 *   note that credentials cannot change in continuous mode and persist across power cycles.
 * - card.wifi.rsp.notecard.api.json: `ssid`, `security` (sample `wpa2-psk`), `secure`, `version`
 *   (sample `3.12.3`).
 * - reference/notecard-behavior.md: hub.sync.status of a WiFi module that could not join,
 *   `"status":"wifi: can't join: sl_status:33"` (forum thread 728); a request a variant lacks
 *   answers `request not supported for <radio> {not-supported}` (F1087).
 * - OpenAPI DeviceSession `transport` (the hub's session record).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { World } from "../../firmware/world/World.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld } from "../sync/support/syncWorld.js";

const OFFICE = {
  ssid: "Office",
  security: "wpa2-psk",
  password: "correct horse",
  rssi: -62,
  bssid: "00:11:22:33:44:55",
} as const;

async function sessionRecords(w: SyncWorld, sim: SimulatedModule): Promise<JsonObject[]> {
  const page = await w.services.store.telemetry.listSessions(
    w.projectUid,
    sim.module.deviceUid,
    { firstSyncOnly: false },
    { offset: 0, limit: 100 },
  );
  return page.items.map((s) => s.data as JsonObject);
}

describe("card.wifi and the WiFi radio", () => {
  let w: SyncWorld;
  let world: World;
  beforeEach(async () => {
    w = await SyncWorld.start("in-process");
    world = new World({ clock: w.clock });
  });
  afterEach(async () => {
    await w.close();
  });

  const wifiModule = (variant = "wifi") =>
    w.module({ hub: { inProcess: w.services.sync, product: w.productUid }, variant, world });
  const ask = async (sim: SimulatedModule, req: JsonObject) => (await sim.module.request(req))!;

  it("joins only a configured access point in range with its key, and says why not in hub.sync.status", async () => {
    world.accessPoints.set([OFFICE]);
    const sim = await wifiModule();
    expect(await ask(sim, { req: "card.wifi" })).toEqual({ version: "3.12.3" });

    expect((await w.sync(sim))["status"]).toBe(
      "wifi: no access point configured (card.wifi ssid and password) {sync-error}",
    );
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "wrong key" });
    expect((await w.sync(sim, { allow: true }))["status"]).toBe(
      "wifi: can't join: sl_status:33 {sync-error}",
    );
    await ask(sim, { req: "card.wifi", ssid: "Cafe", password: "-" });
    expect((await w.sync(sim, { allow: true }))["status"]).toBe(
      'wifi: can\'t find access point "Cafe" {sync-error}',
    );
    expect(await sessionRecords(w, sim)).toHaveLength(0);
    // A station that cannot join opens no registration penalty box: it tries at every sync.
    expect(await ask(sim, { req: "card.wireless.penalty" })).toMatchObject({ count: 0 });

    expect(await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" })).toEqual({
      ssid: "Office",
      security: "wpa2-psk",
      version: "3.12.3",
    });
    expect((await w.sync(sim, { allow: true }))["status"]).toMatch(/\{sync-end\}/);
    const [record] = await sessionRecords(w, sim);
    // OpenAPI DeviceSession `transport`, `ssid`, `bssid`; Event `ssid`, `bssid` on _session.qo.
    expect(record).toMatchObject({
      transport: "wifi",
      rat: "wifi",
      bearer: "WiFi 2.4GHz",
      rssi: -62,
      bars: 3,
      ssid: "Office",
      bssid: "00:11:22:33:44:55",
    });
    const begin = (await w.events(sim, { system: true })).find((e) => e.file === "_session.qo");
    expect(begin?.data).toMatchObject({ ssid: "Office", bssid: "00:11:22:33:44:55" });
  });

  it("keeps the credentials in flash across a restart, and `-` clears them", async () => {
    world.accessPoints.set([OFFICE]);
    const sim = await wifiModule();
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" });
    await sim.module.restart();
    expect(await ask(sim, { req: "card.wifi" })).toMatchObject({ ssid: "Office", security: "wpa2-psk" });
    // A factory reset with delete:true keeps WiFi credentials (reference/notecard-behavior.md, card.restore).
    await ask(sim, { req: "card.restore", delete: true }); // then it restarts
    expect(await ask(sim, { req: "card.wifi" })).toMatchObject({ ssid: "Office", security: "wpa2-psk" });
    expect(await ask(sim, { req: "card.wifi", ssid: "-", password: "-" })).toEqual({ version: "3.12.3" });
    expect(sim.module.radio.state()).toMatchObject({ registered: false });
  });

  it("takes a list of access points in `text` and joins the first one in range", async () => {
    world.accessPoints.set([{ ssid: "Home", security: "wpa3", password: "home-secret", rssi: -48 }]);
    const sim = await wifiModule("cell-wifi");
    const reply = await ask(sim, {
      req: "card.wifi",
      text: '["Office","correct horse"],["Home","home-secret"]',
    });
    // WPA3 access points use Management Frame Protection: `secure`.
    expect(reply).toEqual({ ssid: "Home", security: "wpa3", secure: true, version: "3.12.3" });
    expect(sim.module.radio.state()).toMatchObject({ rat: "wifi", rssi: -48, bars: 4 });
    expect((await ask(sim, { req: "card.wireless" }))["net"]).toMatchObject({ rat: "wifi", rssi: -48 });

    expect((await ask(sim, { req: "card.wifi", text: '["Office"' }))["err"]).toMatch(
      /^card\.wifi: text must be access points as \["SSID","PASSWORD"\]/,
    );
  });

  it("on Cell+WiFi falls back to cellular when its access point goes, and comes back to WiFi", async () => {
    world.accessPoints.set([OFFICE]);
    const sim = await wifiModule("cell-wifi");
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" });
    await ask(sim, { req: "card.transport", method: "wifi-cell", seconds: 60 });
    await w.sync(sim);
    world.accessPoints.remove("Office");
    expect(sim.module.radio.state().rat).toBe("lte");
    await w.sync(sim, { allow: true });
    world.accessPoints.add(OFFICE);
    await w.clock.advance(61_000);
    await w.sync(sim, { allow: true });
    const records = await sessionRecords(w, sim);
    expect(records.map((r) => r["transport"]).sort()).toEqual(["cell:lte", "wifi", "wifi"]);
    // A cellular session names no access point.
    expect(records.find((r) => r["transport"] === "cell:lte")).not.toHaveProperty("ssid");
  });

  it("refuses new credentials in continuous mode, as the schema's note says, but takes the same ones again", async () => {
    const sim = await wifiModule();
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" });
    await ask(sim, { req: "hub.set", mode: "continuous" });
    // WiFi host code configures the module at every boot: the same credentials are no change.
    expect(
      await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" }),
    ).not.toHaveProperty("err");
    expect((await ask(sim, { req: "card.wifi", ssid: "Office", password: "x" }))["err"]).toMatch(
      /^card\.wifi: WiFi credentials cannot change in continuous mode .*hub\.set mode periodic or off first$/,
    );
    // The SoftAP's name may change.
    expect(await ask(sim, { req: "card.wifi", name: "ACME Inc", org: "ACME Inc" })).toEqual({
      ssid: "Office",
      version: "3.12.3",
    });
  });

  it("start:true brings up the SoftAP (named with the MAC's last digits after a `-`) and leaves the access point until credentials come", async () => {
    world.accessPoints.set([OFFICE]);
    const sim = await wifiModule();
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" });
    await ask(sim, { req: "card.wifi", name: "acme-", start: true });
    expect(sim.module.wifi.softAp).toMatch(/^acme-[0-9a-f]{4}$/);
    expect((await w.sync(sim))["status"]).toBe(
      "wifi: in SoftAP mode until an access point is configured {sync-error}",
    );
    await ask(sim, { req: "card.wifi", ssid: "Office", password: "correct horse" });
    expect(sim.module.wifi.softAp).toBeUndefined();
    expect((await w.sync(sim, { allow: true }))["status"]).toMatch(/\{sync-end\}/);
  });

  it("without access points in the world, a WiFi module is on a network it knows (as before the model)", async () => {
    const sim = await wifiModule();
    expect(sim.module.radio.state()).toMatchObject({ registered: true, rat: "wifi" });
    world.accessPoints.set([]);
    expect(sim.module.radio.state()).toMatchObject({ registered: false });
    world.accessPoints.set(undefined);
    expect(sim.module.radio.state()).toMatchObject({ registered: true });
  });

  it("is refused on a cellular module with the real module's words", async () => {
    const sim = await wifiModule("cell");
    expect((await ask(sim, { req: "card.wifi" }))["err"]).toBe(
      "request not supported for cell {not-supported}",
    );
  });
});
