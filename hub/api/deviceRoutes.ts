import { readDevicePublicKey } from "../devices/devicePublicKey.js";
import * as errors from "../errors.js";
import { firmwareFilterValue } from "../store/firmwareVersion.js";
import type { DeviceFilter } from "../store/records.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { MAX_DEFINED_PAGE_SIZE } from "./QueryReader.js";
import { DEVICE_FLEETS, DEVICE_PUBLIC_KEY, PROVISION_DEVICE, SIGNAL_DEVICE } from "./requestBodies.js";
import { DEVICE_UID, resolveDevice, resolveFleet } from "./resolve.js";
import { deviceView, eventView, fleetView, isoTime, sessionView } from "./views.js";

const HEALTH_LOG_TYPES = ["boot", "dfu_completed"] as const;

/** The filters of Get Project Devices / Get Fleet Devices. */
export function deviceFilter(ctx: ProjectContext): DeviceFilter {
  const q = ctx.query;
  // The spec names the module firmware filter moduleFirmware; the definitions notecardFirmware.
  const moduleFirmware = [...q.list("moduleFirmware"), ...q.list("notecardFirmware")];
  for (const value of moduleFirmware) {
    if (firmwareFilterValue(value) === null) throw errors.firmwareFilter(value);
  }
  return {
    deviceUids: q.list("deviceUID"),
    tags: q.list("tag"),
    serialNumbers: q.list("serialNumber"),
    fleetUids: q.list("fleetUID"),
    moduleFirmware,
    hostFirmware: q.list("hostFirmware"),
    locations: q.list("location"),
    productUids: q.list("productUID"),
    skus: q.list("sku"),
  };
}

/** A device public key of a request body, checked (a 400 says what is wrong), as the hub stores it. */
function pinnedKey(pem: string | undefined, field: string): string | undefined {
  if (pem === undefined) return undefined;
  const read = readDevicePublicKey(pem);
  if ("fault" in read) throw errors.fieldInvalid(field, read.fault);
  return read.pem;
}

/** The Device API rows that are not notes, environment variables or fleets. */
export function registerDeviceRoutes(router: HubRouter): void {
  const { store, devices, watchdogs, sync } = router.services;
  const P = "/v1/projects/:projectUID";
  const D = `${P}/devices/:deviceUID`;

  router.project("GET", `${P}/devices`, "viewer", async (ctx) => {
    const page = ctx.query.page();
    const result = await store.devices.listDevices(ctx.project.uid, deviceFilter(ctx), page);
    return { devices: result.items.map(deviceView), has_more: result.hasMore };
  });

  router.project("GET", `${P}/fleets/:fleetUID/devices`, "viewer", async (ctx) => {
    const fleet = await resolveFleet(ctx, ctx.params.fleetUID!);
    const page = ctx.query.page();
    const filter = { ...deviceFilter(ctx), fleetUids: [fleet.uid] };
    const result = await store.devices.listDevices(ctx.project.uid, filter, page);
    return { devices: result.items.map(deviceView), has_more: result.hasMore };
  });

  router.project("GET", `${P}/devices/public-keys`, "developer", async (ctx) => {
    const result = await store.devices.listPublicKeys(ctx.project.uid, ctx.query.page());
    return { device_public_keys: result.items, has_more: result.hasMore };
  });

  router.project("GET", D, "viewer", async (ctx) =>
    deviceView(await resolveDevice(ctx, ctx.params.deviceUID!)),
  );

  router.project("DELETE", D, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    // The older client always sends purge; with it the device's events, sessions and health log
    // in this project go too. Without it they stay with the project (never visible to another
    // project that later provisions the same UID: telemetry is read by project and device).
    await store.devices.deleteDevice(device.uid, ctx.query.bool("purge", false));
    ctx.reply.code(204);
    return undefined;
  });

  for (const [action, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    router.project("POST", `${D}/${action}`, "developer", async (ctx) => {
      const device = await resolveDevice(ctx, ctx.params.deviceUID!);
      await store.devices.setDisabled(device.uid, disabled);
      return undefined;
    });
  }

  // Older client only (removed from the current definition): per-device connectivity assurance.
  for (const [action, enabled] of [
    ["enable-connectivity-assurance", true],
    ["disable-connectivity-assurance", false],
  ] as const) {
    router.project("POST", `${D}/${action}`, "developer", async (ctx) => {
      const device = await resolveDevice(ctx, ctx.params.deviceUID!);
      await store.devices.setConnectivityAssurance(device.uid, enabled);
      return undefined;
    });
  }

  router.project("GET", `${D}/health-log`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const types = ctx.query.list("log_type");
    for (const t of types) {
      if (!(HEALTH_LOG_TYPES as readonly string[]).includes(t))
        throw errors.queryOneOf("log_type", HEALTH_LOG_TYPES);
    }
    const entries = await store.telemetry.listHealthLog(ctx.project.uid, device.uid, {
      startSec: ctx.query.date("startDate"),
      endSec: ctx.query.date("endDate"),
      types,
    });
    return {
      health_log: entries.map((e) => ({ when: isoTime(e.whenSec * 1000), alert: e.alert, text: e.text })),
    };
  });

  router.project("GET", `${D}/plans`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    return { cellular_plans: device.details.cellularPlans ?? [] };
  });

  router.project("GET", `${D}/latest`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    return {
      latest_events: (await store.telemetry.latestEvents(ctx.project.uid, device.uid)).map(eventView),
    };
  });

  router.project("GET", `${D}/sessions`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    // The definition's paging (at most 10,000) and dates (epoch seconds from 0, in order).
    const page = ctx.query.page(MAX_DEFINED_PAGE_SIZE);
    const { startSec, endSec } = ctx.query.dateRange();
    const result = await store.telemetry.listSessions(
      ctx.project.uid,
      device.uid,
      { startSec, endSec, firstSyncOnly: ctx.query.bool("firstSync", false) },
      page,
    );
    return { sessions: result.items.map(sessionView), has_more: result.hasMore };
  });

  router.project("GET", `${D}/public-key`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    if (!device.publicKey) throw errors.publicKeyNotFound(device.uid);
    return { uid: device.uid, key: device.publicKey };
  });

  // Ours, beside the hosted API's GET: pins the key the device must prove at every session (before
  // its first one, so that nobody else can claim it; again to replace it). Sessions open now end.
  router.project("PUT", `${D}/public-key`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const pem = pinnedKey(ctx.body(DEVICE_PUBLIC_KEY).key, "key")!;
    const pinned = await devices.pinPublicKey(device, pem);
    await sync.keyChanged(device.uid);
    return { uid: pinned.uid, key: pinned.publicKey };
  });

  router.project("POST", `${D}/signal`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    await devices.signal(device, ctx.body(SIGNAL_DEVICE).body);
    return { connected: device.connected };
  });

  router.project("POST", `${D}/provision`, "developer", async (ctx) => {
    const uid = ctx.params.deviceUID!;
    if (!DEVICE_UID.test(uid)) throw errors.invalidDeviceUid(uid);
    const body = ctx.body(PROVISION_DEVICE);
    const productUid = body.product_uid;
    const serialNumber = body.device_sn;
    const fleetUids = body.fleet_uids ?? [];
    // Ours: the key the device is to prove, pinned before it first connects.
    const publicKey = pinnedKey(body.public_key, "public_key");
    // Applies when the device first connects: until then the record holds what it will get.
    await devices.provision(ctx.project.uid, uid, {
      productUid,
      serialNumber,
      fleetUids,
      ...(publicKey ? { publicKey } : {}),
    });
    return {};
  });

  // Device fleet membership.
  const fleetsOf = async (uids: string[]): Promise<unknown> => {
    const fleets = [];
    for (const uid of uids) {
      const fleet = await store.projects.getFleet(uid);
      if (fleet) fleets.push(fleetView(fleet, await store.env.get({ kind: "fleet", uid })));
    }
    return { fleets };
  };

  router.project("GET", `${D}/fleets`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    return fleetsOf(device.fleetUids);
  });

  router.project("PUT", `${D}/fleets`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const fleetUids = ctx.body(DEVICE_FLEETS).fleet_uids;
    for (const uid of fleetUids) await resolveFleet(ctx, uid);
    const fleets = await store.devices.addToFleets(device.uid, fleetUids);
    watchdogs.changed();
    return fleetsOf(fleets);
  });

  router.project("DELETE", `${D}/fleets`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const fleetUids = ctx.body(DEVICE_FLEETS).fleet_uids;
    for (const uid of fleetUids) await resolveFleet(ctx, uid);
    const fleets = await store.devices.removeFromFleets(device.uid, fleetUids);
    watchdogs.changed();
    return fleetsOf(fleets);
  });
}
