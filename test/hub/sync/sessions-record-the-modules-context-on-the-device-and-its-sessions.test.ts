import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../../../hub/store/records.js";
import { SYNC_TRACKER } from "../../../protocol/trackers.js";
import { deviceNote, ScriptedModule, type SendMessage } from "./support/ScriptedModule.js";
import { describeWithSqliteHalf } from "../../support/postgres.js";
import { syncCases, SyncFixture } from "./support/syncFixture.js";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe.each(syncCases())("sessions, device records and environment (%s, %s)", (via, backend) => {
  let hub: SyncFixture;
  let events: EventRecord[];
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { backend });
    events = [];
    hub.services.events.subscribe((e) => {
      events.push(e);
    });
  });
  afterAll(async () => hub.close());

  const devicePath = (device: string) => `/v1/projects/${hub.projectUid}/devices/${device}`;

  it("writes the session record, the _session.qo events and the device record from the context", async () => {
    let sent = 0;
    let received = 0;
    const counting: SendMessage = async (message) => {
      sent += bytes(message);
      const reply = await hub.send(message);
      received += bytes(reply);
      return reply;
    };
    const module = await ScriptedModule.create(counting, {
      device: "dev:864475000009999",
      product: hub.productUid,
    });
    const began = hub.clock.now();
    const open = await module.open({
      why: "boot",
      context: {
        sn: "garage-1",
        host: { version: "host-2.0" },
        voltage: 3.9,
        temp: 18.25,
        where: { lat: 52.52, lon: 13.405, time: 1_767_225_000 },
        penalty_secs: 30,
        failed_connects: 2,
        usage: { bytes_sent: 10, bytes_received: 20, notes_sent: 1, notes_received: 0 },
      },
    });
    expect(open).toMatchObject({ v: 1, time: began, reset: true, signals: 0, files: [] });
    // In process the fixture names no zones; over HTTP the hub's own lookup does (see the zone tests).
    expect([
      { lat: 52.52, lon: 13.405, zone: "UTC,Unknown", minutes: 0, area: "Berlin", country: "DE" },
      { lat: 52.52, lon: 13.405, zone: "CET,Europe/Berlin", minutes: 60, area: "Berlin", country: "DE" },
    ]).toContainEqual(open.where);

    const device = (await hub.api("GET", devicePath(module.device))).json;
    expect(device).toMatchObject({
      serial_number: "garage-1",
      sku: "NOTE-WBGLW",
      voltage: 3.9,
      temperature: 18.25,
      last_activity: "2026-01-01T00:00:00Z",
      firmware_host: JSON.stringify({ version: "host-2.0" }),
      gps_location: { latitude: 52.52, longitude: 13.405, when: "2025-12-31T23:50:00Z" },
    });
    expect(JSON.parse(device.firmware_module)).toMatchObject({ version: "notecard-8.1.3" });

    await hub.clock.advance(5_000);
    await module.push("data.qo", [deviceNote("1", { change: 1 }), deviceNote("2", { change: 2 })]);
    await hub.api("POST", `${devicePath(module.device)}/notes/in.qi`, { body: { x: 1 } });
    await module.pullAll("in.qi");
    await hub.clock.advance(5_000);
    await module.close("sync complete", {
      bytes_sent: 1,
      bytes_received: 2,
      notes_sent: 3,
      notes_received: 4,
    });

    // The device was last heard from when the session closed.
    expect((await hub.api("GET", devicePath(module.device))).json.last_activity).toBe("2026-01-01T00:00:10Z");
    const sessions = (await hub.api("GET", `${devicePath(module.device)}/sessions`)).json.sessions;
    expect(sessions).toHaveLength(1);
    const session = sessions[0];
    expect(session).toMatchObject({
      session: open.session,
      device: module.device,
      product: hub.productUid,
      sn: "garage-1",
      why_session_opened: "boot",
      why_session_closed: "sync complete",
      transport: "cell:lte",
      tls: hub.secure,
      continuous: false,
      voltage: 3.9,
      temp: 18.25,
      rat: "lte",
      bearer: "LTE Cat-1",
      rssi: -70,
      rsrp: -95,
      rsrq: -10,
      sinr: 12,
      bars: 3,
      penalty_secs: 30,
      failed_connects: 2,
      where_lat: 52.52,
      where_lon: 13.405,
      session_began: Math.floor(began / 1000),
      session_ended: Math.floor(began / 1000) + 10,
      events: 2,
    });
    // Every message's JSON both ways, as the hub counted it (the module's side: sent, received).
    expect(session.period).toEqual({
      since: Math.floor(began / 1000),
      duration: 10,
      bytes_sent: sent,
      bytes_rcvd: received,
      notes_sent: 2,
      notes_rcvd: 1,
      [hub.secure ? "sessions_tls" : "sessions_tcp"]: 1,
    });

    const own = events.filter((e) => e.deviceUid === module.device && e.file === "_session.qo");
    expect(own.map((e) => e.data.req)).toEqual(["session.begin", "session.end"]);
    expect(own[0]!.data).toMatchObject({
      session: open.session,
      body: { why: "boot", usage: { bytes_sent: 10 } },
      sku: "NOTE-WBGLW",
      voltage: 3.9,
      bars: 3,
      tls: hub.secure,
      where_lat: 52.52,
      best_location_type: "gps",
    });
    expect(own[1]!.data).toMatchObject({ body: { why: "sync complete", usage: { notes_received: 4 } } });
  });

  it("resets the trackers when the module does not hold the hub's tracker session", async () => {
    const module = await hub.module();
    const first = await module.open();
    expect(first.reset).toBe(true);
    const again = await module.open();
    expect(again).toMatchObject({ reset: false, tracker: first.tracker });
    await hub.api("POST", `${devicePath(module.device)}/notes/a.qi`, { body: { n: 1 } });
    await hub.api("POST", `${devicePath(module.device)}/notes/b.db/k`, { body: { n: 1 } });
    await module.pullAll("b.db");
    expect(await hub.store.notefiles.trackerPosition(module.device, "b.db", SYNC_TRACKER)).toBe(1);
    expect((await module.open()).files).toEqual(["a.qi"]);

    // A factory reset: the module comes back without a tracker session, and everything goes again.
    module.tracker = "";
    const fresh = await module.open();
    expect(fresh.reset).toBe(true);
    expect(fresh.tracker).not.toBe(first.tracker);
    expect(fresh.files).toEqual(["a.qi", "b.db"]);
    expect(await hub.store.notefiles.trackerPosition(module.device, "b.db", SYNC_TRACKER)).toBe(0);
    // A tracker session the hub never gave is reset the same way.
    module.tracker = "made-up";
    expect((await module.open()).reset).toBe(true);
    const sessions = (await hub.api("GET", `${devicePath(module.device)}/sessions?firstSync=true`)).json
      .sessions;
    expect(sessions).toHaveLength(3);
  });

  it("hands the module its environment: device, fleets (newest wins) and project values", async () => {
    const module = await hub.module();
    await module.open();
    const fleetA = (await hub.api("POST", `/v1/projects/${hub.projectUid}/fleets`, { label: "a" })).json.uid;
    const fleetB = (await hub.api("POST", `/v1/projects/${hub.projectUid}/fleets`, { label: "b" })).json.uid;
    await hub.api("PUT", `${devicePath(module.device)}/fleets`, { fleet_uids: [fleetA, fleetB] });
    await hub.api("PUT", `/v1/projects/${hub.projectUid}/environment_variables`, {
      environment_variables: { shared: "project", level: "p" },
    });
    await hub.clock.advance(1_000);
    await hub.api("PUT", `/v1/projects/${hub.projectUid}/fleets/${fleetA}/environment_variables`, {
      environment_variables: { shared: "a" },
    });
    await hub.clock.advance(1_000);
    await hub.api("PUT", `/v1/projects/${hub.projectUid}/fleets/${fleetB}/environment_variables`, {
      environment_variables: { shared: "b" },
    });
    await hub.clock.advance(1_000);
    await hub.api("PUT", `${devicePath(module.device)}/environment_variables`, {
      environment_variables: { mine: "yes" },
    });
    const changed = Math.floor(hub.clock.now() / 1000);
    await hub.clock.advance(60_000);
    const open = await module.open({ context: { env_defaults: { period: "60", mode: "fast" } } });
    expect(open.env).toEqual({
      device: { mine: "yes" },
      fleet: { shared: "b" },
      project: { shared: "project", level: "p" },
      modified: changed,
    });
    const vars = (await hub.api("GET", `${devicePath(module.device)}/environment_variables`)).json;
    expect(vars.environment_variables_env_default).toEqual({ period: "60", mode: "fast" });
    await module.open({ context: { env_defaults: { period: "30" } } });
    const after = (await hub.api("GET", `${devicePath(module.device)}/environment_variables`)).json;
    expect(after.environment_variables_env_default).toEqual({ period: "30" });
  });

  it("ends a session the module left open when it opens another", async () => {
    const module = await hub.module();
    const first = await module.open({ context: { continuous: true } });
    expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(true);
    await module.open();
    expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(false);
    const sessions = (await hub.api("GET", `${devicePath(module.device)}/sessions`)).json.sessions;
    const old = sessions.find((s: { session: string }) => s.session === first.session);
    expect(old.why_session_closed).toBe("superseded by a new session");
  });
});

describeWithSqliteHalf("the open reply's place", () => {
  it("names the zone of the device's last fix with its abbreviation and offset", async () => {
    const hub = await SyncFixture.start("in process", {
      zoneLookup: (lat) => (lat > 0 ? "Europe/Berlin" : "Not/AZone"),
    });
    try {
      const module = await hub.module();
      const open = await module.open({ context: { where: { lat: 52.52, lon: 13.405, time: 1 } } });
      // In process the fixture names no zones; over HTTP the hub's own lookup does (see the zone tests).
      expect([
        { lat: 52.52, lon: 13.405, zone: "UTC,Unknown", minutes: 0, area: "Berlin", country: "DE" },
        { lat: 52.52, lon: 13.405, zone: "CET,Europe/Berlin", minutes: 60, area: "Berlin", country: "DE" },
      ]).toContainEqual(open.where);
      const device = (await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}`)).json;
      expect(device.gps_location.timezone).toBe("Europe/Berlin");
      // A later session without a fix is placed where the last one was.
      expect((await module.open()).where).toMatchObject({ zone: "CET,Europe/Berlin" });
      const south = await hub.module();
      expect(
        (await south.open({ context: { where: { lat: -33.9, lon: 18.4, time: 1 } } })).where,
      ).toMatchObject({
        lat: -33.9,
        lon: 18.4,
        zone: "UTC,Unknown",
        minutes: 0,
        country: "ZA",
      });
      // No fix ever: no place.
      expect((await (await hub.module()).open()).where).toBeUndefined();
    } finally {
      await hub.close();
    }
  });
});
