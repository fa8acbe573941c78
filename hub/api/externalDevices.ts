import type { JsonObject } from "../../core/json.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import * as errors from "../errors.js";
import { ServiceError } from "../ServiceError.js";
import type { DeviceRecord, EventRecord } from "../store/records.js";
import type { ProjectContext } from "./HubRouter.js";

/**
 * What the hub's endpoints for devices without a module of their own share (legacy webhook
 * events, webhooks, external devices and their sessions): finding or provisioning the device
 * named in a request, and recording a Note-shaped object as one of its events.
 */

/** Members of a Note-shaped object not copied as given: the hub's own, and those read into their place. */
const NOT_COPIED = new Set([
  "event",
  "device",
  "file",
  "received",
  "session",
  "app",
  "product",
  "req",
  "best_id",
  "updates",
  "when",
  "body",
  "payload",
]);

/**
 * The device `deviceUid` of the request's project, provisioned into it (with the path's product)
 * if the hub does not know it yet; undefined when it is another project's: such a request is
 * answered exactly as for an unknown device, so the answer does not tell that the UID exists
 * elsewhere, nothing is stored in either project, and only the hub's own log says so.
 */
export async function externalDevice(
  ctx: ProjectContext,
  deviceUid: string,
  productUid: string,
): Promise<DeviceRecord | undefined> {
  if (!DEVICE_UID.test(deviceUid)) throw errors.invalidDeviceUid(deviceUid);
  const { store, devices } = ctx.services;
  const elsewhere = (): undefined => {
    ctx.request.log.warn(
      { deviceUid, projectUid: ctx.project.uid },
      "request dropped: the DeviceUID belongs to another project (answered as accepted)",
    );
    return undefined;
  };
  const device = await store.devices.getDevice(deviceUid);
  if (device) return device.projectUid === ctx.project.uid ? device : elsewhere();
  try {
    return await devices.provision(ctx.project.uid, deviceUid, { productUid });
  } catch (error) {
    // Provisioned into another project since we looked: the same answer as above.
    if (error instanceof ServiceError && error.code === "device-elsewhere") return elsewhere();
    throw error;
  }
}

/** A Note-shaped object: the notefile, its body and payload, when it was captured, anything else. */
export interface NoteShaped {
  file: string;
  body?: JsonObject;
  payload?: string;
  when?: unknown;
  [member: string]: unknown;
}

/**
 * Records `note` as an event of `device`: `file` names the notefile, `body` and `payload` are the
 * note's, `when` (epoch seconds) is when it was captured, and any other member (`sn`,
 * `where_lat`, ...) is kept in the event as given. It reaches routes, smart fleets, the events API
 * and the live stream like an event a module synced.
 */
export function recordNoteEvent(
  ctx: ProjectContext,
  device: DeviceRecord,
  note: NoteShaped,
): Promise<EventRecord> {
  const data: JsonObject = {};
  for (const [key, value] of Object.entries(note)) {
    if (!NOT_COPIED.has(key) && value !== null && value !== undefined)
      data[key] = value as JsonObject[string];
  }
  Object.assign(data, {
    req: "note.add",
    app: device.projectUid,
    product: device.productUid,
    best_id: device.serialNumber ?? device.uid,
  });
  if (device.serialNumber && data["sn"] === undefined) data["sn"] = device.serialNumber;
  if (note.body !== undefined) data["body"] = note.body;
  if (note.payload !== undefined) data["payload"] = note.payload;
  return ctx.services.events.record({
    projectUid: device.projectUid,
    deviceUid: device.uid,
    file: note.file,
    data,
    ...(typeof note.when === "number" ? { whenSec: Math.floor(note.when) } : {}),
  });
}
