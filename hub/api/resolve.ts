import * as errors from "../errors.js";
import type { DeviceRecord, FleetRecord } from "../store/records.js";
import type { ProjectContext } from "./HubRouter.js";

import { DEVICE_UID } from "../devices/deviceUid.js";

export { DEVICE_UID };

/**
 * The device named by a path segment within the request's project: a DeviceUID, or `sn:<serial>`
 * (spec convention 3). A device of another project is not found, never shown.
 */
export async function resolveDevice(ctx: ProjectContext, id: string): Promise<DeviceRecord> {
  const store = ctx.services.store;
  if (id.startsWith("sn:")) {
    const serial = id.slice(3);
    const matches = await store.devices.findBySerial(ctx.project.uid, serial);
    if (matches.length === 0) throw errors.deviceNotFound(id);
    if (matches.length > 1) throw errors.serialAmbiguous(serial, matches.length);
    return matches[0]!;
  }
  if (!DEVICE_UID.test(id)) throw errors.invalidDeviceUid(id);
  const device = await store.devices.getDevice(id);
  if (!device || device.projectUid !== ctx.project.uid) throw errors.deviceNotFound(id);
  return device;
}

/** A fleet of the request's project. */
export async function resolveFleet(ctx: ProjectContext, uid: string): Promise<FleetRecord> {
  const fleet = await ctx.services.store.projects.getFleet(uid);
  if (!fleet || fleet.projectUid !== ctx.project.uid) throw errors.fleetNotFound(uid);
  return fleet;
}
