import { createHash } from "node:crypto";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { DEVICE_UID } from "../devices/deviceUid.js";
import * as errors from "../errors.js";
import { JsonataError } from "../events/JsonataCache.js";
import { HttpError } from "../HttpError.js";
import { jsonataSyntaxFault } from "../integrations/Integrations.js";
import type { WebhookRecord } from "../store/IntegrationStore.js";
import { body, BodySchema, flag, shape, text } from "./bodySchema.js";
import { externalDevice, type NoteShaped, recordNoteEvent } from "./externalDevices.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { checkNoteShaped } from "./webhookEventRoutes.js";

/** A webhook's name (`webhookUID`): letters, digits, `_`, `-` and `.`, as the definition's example. */
const WEBHOOK_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The notefile of a webhook's events when its transform names none. */
export const WEBHOOK_FILE = "webhook.qo";

const settingsFields = {
  id: text(),
  disabled: flag(),
  transform: text({ max: 65_536 }),
};
/** WebhookSettings; CreateWebhook's example wraps them in `settings`, which is read too. */
export const WEBHOOK_SETTINGS = body({ ...settingsFields, settings: shape(settingsFields) });

/** What a webhook is posted: any JSON object, kept as it came (nulls too). */
export const ANY_OBJECT = new BodySchema<JsonObject>({ type: "object" }, { keepNulls: true });

const webhookView = (w: WebhookRecord): JsonObject => ({
  id: w.id,
  disabled: w.disabled,
  transform: w.transform,
});

const webhookNotFound = (id: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: webhook ${JSON.stringify(id)}`);

function webhookName(ctx: ProjectContext): string {
  const id = ctx.params.webhookUID!;
  if (!WEBHOOK_NAME.test(id)) {
    throw errors.fieldInvalid("webhookUID", "must be 1 to 128 letters, digits, '_', '-' or '.'");
  }
  return id;
}

async function existing(ctx: ProjectContext): Promise<WebhookRecord> {
  const id = webhookName(ctx);
  const webhook = await ctx.services.store.integrations.getWebhook(ctx.project.uid, id);
  if (!webhook) throw webhookNotFound(id);
  return webhook;
}

/** The settings a body gives (the whole of them: what it leaves out is reset), checked. */
function settingsOf(ctx: ProjectContext, id: string, created: number): WebhookRecord {
  const given = ctx.body(WEBHOOK_SETTINGS);
  const settings = given.settings ?? given;
  if (settings.id !== undefined && settings.id !== id) {
    throw errors.fieldInvalid("id", `must be the webhook's name in the path (${id}) when given`);
  }
  const transform = settings.transform ?? "";
  const fault = transform.trim() === "" ? undefined : jsonataSyntaxFault(transform);
  if (fault) throw errors.fieldInvalid("transform", `is not a JSONata expression: ${fault}`);
  return {
    projectUid: ctx.project.uid,
    id,
    disabled: settings.disabled ?? false,
    transform,
    created,
    modified: ctx.now,
  };
}

/** The DeviceUID a transform's `device` names: a DeviceUID, or an identifier made one (`dev:` + it). */
function deviceNamed(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const uid = typeof value === "string" && !value.startsWith("dev:") ? `dev:${value}` : value;
  if (typeof uid !== "string" || !DEVICE_UID.test(uid)) {
    throw errors.fieldInvalid(
      "device",
      "given by the webhook's transform is not a DeviceUID or a device identifier",
    );
  }
  return uid;
}

/** The device standing for a webhook's events that name none: one per webhook of a project. */
function standInDevice(projectUid: string, webhookId: string): string {
  return `dev:webhook${createHash("sha256").update(`${projectUid}\n${webhookId}`).digest("hex").slice(0, 16)}`;
}

/** What the webhook's transform makes of what was posted: a Note-shaped object, or nothing to store. */
async function transformed(
  ctx: ProjectContext,
  webhook: WebhookRecord,
  posted: JsonObject,
): Promise<JsonObject | undefined> {
  if (webhook.transform.trim() === "") return { body: posted };
  const input = {
    body: posted,
    webhook: webhook.id,
    app: ctx.project.uid,
    product: ctx.params.productUID,
    received: ctx.now / 1000,
  };
  try {
    const result = await ctx.services.integrations.evaluate(webhook.transform, input);
    if (result.doNotRoute || result.value === undefined) return undefined;
    if (!isJsonObject(result.value)) throw new JsonataError("it gave no JSON object", false);
    return result.value;
  } catch (error) {
    if (!(error instanceof JsonataError)) throw error;
    throw new HttpError(400, `webhook ${webhook.id}'s transform failed on the posted body: ${error.message}`);
  }
}

/** CreateWebhookEventByProduct and CreateWebhookDeviceEventByProduct. */
async function webhookEvent(ctx: ProjectContext): Promise<JsonObject> {
  const webhook = await existing(ctx);
  const pathDevice = ctx.params.deviceUID;
  if (pathDevice !== undefined && !DEVICE_UID.test(pathDevice)) throw errors.invalidDeviceUid(pathDevice);
  if (webhook.disabled) throw errors.conflict(`webhook ${webhook.id} is disabled: its events are refused`);
  const posted = ctx.body(ANY_OBJECT);
  const note = await transformed(ctx, webhook, posted);
  if (!note) return {};
  if (note["body"] !== undefined && !isJsonObject(note["body"])) {
    throw errors.fieldInvalid("body", "given by the webhook's transform must be a JSON object");
  }
  const shaped = {
    ...note,
    file: typeof note["file"] === "string" ? note["file"] : WEBHOOK_FILE,
  } as NoteShaped;
  checkNoteShaped(shaped);
  const deviceUid = pathDevice ?? deviceNamed(note["device"]) ?? standInDevice(ctx.project.uid, webhook.id);
  const device = await externalDevice(ctx, deviceUid, ctx.params.productUID!);
  if (device) await recordNoteEvent(ctx, device, { ...shaped, webhook: webhook.id });
  return {};
}

/**
 * Webhooks: named inlets through which a service that is not a module (a LoRaWAN network server,
 * another cloud) posts events. Each has a JSONata `transform` turning what was posted into a
 * Note-shaped object (`device`, `sn`, `file`, `body`, `payload`, `when`, anything else kept);
 * without one, the posted body is the event's body. The event is stored like any other and goes
 * through the global transformation, routes, smart fleets and the live stream.
 */
export function registerWebhookRoutes(router: HubRouter): void {
  const { store } = router.services;
  const hooks = () => store.integrations;
  const one = "/v1/projects/:projectUID/webhooks/:webhookUID";
  const byProduct = "/v1/products/:productUID/webhooks/:webhookUID";

  router.project("GET", "/v1/projects/:projectUID/webhooks", "viewer", async (ctx) => ({
    webhooks: (await hooks().listWebhooks(ctx.project.uid)).map(webhookView),
  }));
  router.project("GET", one, "viewer", async (ctx) => webhookView(await existing(ctx)));
  router.project("POST", one, "developer", async (ctx) => {
    const id = webhookName(ctx);
    const webhook = settingsOf(ctx, id, ctx.now);
    if (await hooks().getWebhook(ctx.project.uid, id)) {
      throw errors.conflict(`a webhook named ${id} exists in the project already`);
    }
    await hooks().putWebhook(webhook);
    return {};
  });
  // UpdateWebhook creates the webhook when it does not exist.
  router.project("PUT", one, "developer", async (ctx) => {
    const id = webhookName(ctx);
    const before = await hooks().getWebhook(ctx.project.uid, id);
    await hooks().putWebhook(settingsOf(ctx, id, before?.created ?? ctx.now));
    return {};
  });
  router.project("DELETE", one, "developer", async (ctx) => {
    const id = webhookName(ctx);
    if (!(await hooks().deleteWebhook(ctx.project.uid, id))) throw webhookNotFound(id);
    return {};
  });
  router.project("GET", `${byProduct}/settings`, "viewer", async (ctx) => webhookView(await existing(ctx)));
  router.project("PUT", `${byProduct}/settings`, "developer", async (ctx) => {
    const before = await existing(ctx);
    await hooks().putWebhook(settingsOf(ctx, before.id, before.created));
    return {};
  });
  router.project("POST", `${byProduct}/event`, "developer", webhookEvent);
  router.project("POST", `${byProduct}/devices/:deviceUID/event`, "developer", webhookEvent);
}
