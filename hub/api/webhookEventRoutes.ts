import { decodeBase64 } from "../../core/base64.js";
import { kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import * as errors from "../errors.js";
import { externalDevice, type NoteShaped, recordNoteEvent } from "./externalDevices.js";
import type { HubRouter } from "./HubRouter.js";
import { WEBHOOK_EVENT } from "./requestBodies.js";

/** Refuses a Note-shaped object whose notefile is not an outbound queue or whose payload is not base64. */
export function checkNoteShaped(note: NoteShaped): void {
  const fault = notefileNameFault(note.file);
  if (fault) throw errors.fieldInvalid("file", `is not a notefile name (${fault})`);
  const kind = kindOfGoodName(note.file);
  if (!kind.queue || kind.direction !== "out") {
    throw errors.fieldInvalid(
      "file",
      "must name an outbound queue (.qo or .qos): the event stands for a device's note",
    );
  }
  if (note.payload !== undefined && !decodeBase64(note.payload))
    throw errors.fieldInvalid("payload", "is not base64");
}

/**
 * The definition's legacy webhook endpoint (CreateLegacyWebhookEvent) and its external-device
 * twin (CreateEventExtDevice): a service that is not a module posts a Note-shaped object (an
 * Event object) as an event of a device, which is provisioned into the product's project if the
 * hub does not know it yet (one of another project is answered alike, and nothing is stored:
 * see `externalDevice`). `file` names the notefile (an outbound queue: the event stands for what
 * a device sent); the rest is as `recordNoteEvent` says.
 */
export function registerWebhookEventRoutes(router: HubRouter): void {
  const handler: Parameters<HubRouter["project"]>[3] = async (ctx) => {
    const deviceUid = ctx.params.deviceUID!;
    if (!DEVICE_UID.test(deviceUid)) throw errors.invalidDeviceUid(deviceUid);
    const note = ctx.body(WEBHOOK_EVENT);
    checkNoteShaped(note);
    const device = await externalDevice(ctx, deviceUid, ctx.params.productUID!);
    if (device) await recordNoteEvent(ctx, device, note);
    return {};
  };
  router.project("POST", "/v1/products/:productUID/devices/:deviceUID/webhook-event", "developer", handler);
  // CreateEventExtDevice: the same for an external device, its body an Event object.
  router.project("POST", "/v1/products/:productUID/ext-devices/:deviceUID/event", "developer", handler);
}
