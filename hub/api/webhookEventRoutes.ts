import { decodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import { kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import * as errors from "../errors.js";
import { ServiceError } from "../ServiceError.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { WEBHOOK_EVENT } from "./requestBodies.js";

/** Members not copied as given: those the hub writes itself, and those read into their own place. */
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
 * A UID of another project's device: answered exactly as an unknown device's event is (`{}`), so
 * the answer does not tell that the UID exists elsewhere; nothing is stored in either project and
 * the other project's device is neither moved nor touched. Only the hub's own log says so.
 */
function elsewhere(ctx: ProjectContext, deviceUid: string): JsonObject {
  ctx.request.log.warn(
    { deviceUid, projectUid: ctx.project.uid },
    "webhook event dropped: the DeviceUID belongs to another project (answered as accepted)",
  );
  return {};
}

/**
 * The definition's legacy webhook endpoint (CreateLegacyWebhookEvent) and its external-device
 * twin (CreateEventExtDevice): a service that is not a module posts a Note-shaped object (an
 * Event object) as an event of a device, which is provisioned into the
 * product's project if the hub does not know it yet (one of another project is answered alike, and
 * nothing is stored: see `elsewhere`). `file` names the notefile (an outbound
 * queue: the event stands for what a device sent), `body` and `payload` (base64) are the note's,
 * `when` (epoch seconds) is when it was captured, and any other member (`sn`, `where_lat`,
 * `where_lon`, ...) is kept in the event as given. The event reaches routes, smart fleets and the
 * events API like one a module synced.
 */
export function registerWebhookEventRoutes(router: HubRouter): void {
  const { store, devices, events } = router.services;

  const handler: Parameters<HubRouter["project"]>[3] = async (ctx) => {
    const deviceUid = ctx.params.deviceUID!;
    if (!DEVICE_UID.test(deviceUid)) throw errors.invalidDeviceUid(deviceUid);
    const note = ctx.body(WEBHOOK_EVENT);
    const file = note.file;
    const fault = notefileNameFault(file);
    if (fault) throw errors.fieldInvalid("file", `is not a notefile name (${fault})`);
    const kind = kindOfGoodName(file);
    if (!kind.queue || kind.direction !== "out") {
      throw errors.fieldInvalid(
        "file",
        "must name an outbound queue (.qo or .qos): the event stands for a device's note",
      );
    }
    const { body: content, payload, when } = note;
    if (payload !== undefined && !decodeBase64(payload))
      throw errors.fieldInvalid("payload", "is not base64");
    const productUid = ctx.params.productUID!;
    let device = await store.devices.getDevice(deviceUid);
    if (device && device.projectUid !== ctx.project.uid) return elsewhere(ctx, deviceUid);
    if (!device) {
      try {
        device = await devices.provision(ctx.project.uid, deviceUid, { productUid });
      } catch (error) {
        // Provisioned into another project since we looked: the same answer as above.
        if (error instanceof ServiceError && error.code === "device-elsewhere") {
          return elsewhere(ctx, deviceUid);
        }
        throw error;
      }
    }
    const data: JsonObject = {};
    for (const [key, value] of Object.entries(note)) {
      if (!NOT_COPIED.has(key) && value !== null) data[key] = value;
    }
    Object.assign(data, {
      req: "note.add",
      app: device.projectUid,
      product: device.productUid,
      best_id: device.serialNumber ?? device.uid,
    });
    if (device.serialNumber && data["sn"] === undefined) data["sn"] = device.serialNumber;
    if (content !== undefined) data["body"] = content;
    if (payload !== undefined) data["payload"] = payload;
    await events.record({
      projectUid: device.projectUid,
      deviceUid: device.uid,
      file,
      data,
      ...(typeof when === "number" ? { whenSec: Math.floor(when) } : {}),
    });
    return {};
  };
  router.project("POST", "/v1/products/:productUID/devices/:deviceUID/webhook-event", "developer", handler);
  // CreateEventExtDevice: the same for an external device, its body an Event object.
  router.project("POST", "/v1/products/:productUID/ext-devices/:deviceUID/event", "developer", handler);
}
