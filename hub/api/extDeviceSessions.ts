import type { JsonObject } from "../../core/json.js";
import type { DeviceRecord, SessionRecord } from "../store/records.js";
import { BodySchema } from "./bodySchema.js";
import { externalDevice } from "./externalDevices.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";

/** The notefile of the hub's session events (as the device sync writes them). */
const SESSION_FILE = "_session.qo";

/** The DeviceSession members a caller may give, by JSON type (the rest are the hub's, or dropped). */
const MEMBER_TYPES: Record<string, "string" | "integer" | "number" | "boolean"> = {
  apn: "string",
  bars: "integer",
  bearer: "string",
  bssid: "string",
  cell: "string",
  continuous: "boolean",
  iccid: "string",
  ip: "string",
  orientation: "string",
  power_charging: "boolean",
  power_mah: "number",
  power_primary: "boolean",
  power_usb: "boolean",
  rat: "string",
  rsrp: "integer",
  rsrq: "integer",
  rssi: "integer",
  sinr: "integer",
  sn: "string",
  ssid: "string",
  temp: "number",
  tls: "boolean",
  transport: "string",
  voltage: "number",
  when: "integer",
  where: "string",
  where_country: "string",
  where_lat: "number",
  where_lon: "number",
  where_location: "string",
  where_timezone: "string",
  session_began: "integer",
  session_ended: "integer",
};

const DEVICE_SESSION = new BodySchema<JsonObject>({
  type: "object",
  properties: Object.fromEntries(
    Object.entries(MEMBER_TYPES).map(([name, type]) => [
      name,
      { type: [type, "null"], says: { type: `must be of type ${type}` } },
    ]),
  ),
});

/** The members of a DeviceSession body the hub keeps (the typed ones; null ones dropped). */
function given(ctx: ProjectContext): JsonObject {
  const body = ctx.body(DEVICE_SESSION, { required: false });
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(body)) if (name in MEMBER_TYPES) out[name] = value;
  return out;
}

/** The device's newest session, when it is still open. */
async function openSession(ctx: ProjectContext, device: DeviceRecord): Promise<SessionRecord | undefined> {
  const page = await ctx.services.store.telemetry.listSessions(
    device.projectUid,
    device.uid,
    { firstSyncOnly: false },
    { offset: 0, limit: 1 },
  );
  const newest = page.items[0];
  return newest && newest.endedSec === null ? newest : undefined;
}

async function sessionEvent(
  ctx: ProjectContext,
  device: DeviceRecord,
  session: SessionRecord,
  why: string,
): Promise<void> {
  const ended = session.endedSec !== null;
  await ctx.services.events.record({
    projectUid: device.projectUid,
    deviceUid: device.uid,
    file: SESSION_FILE,
    sessionUid: session.uid,
    data: {
      app: device.projectUid,
      product: device.productUid,
      device: device.uid,
      best_id: device.serialNumber ?? device.uid,
      session: session.uid,
      req: ended ? "session.end" : "session.begin",
      file: SESSION_FILE,
      when: ended ? session.endedSec! : session.beganSec,
      body: { why },
      ...(typeof session.data["transport"] === "string" ? { transport: session.data["transport"] } : {}),
    },
  });
}

async function close(
  ctx: ProjectContext,
  device: DeviceRecord,
  session: SessionRecord,
  more: JsonObject,
  why: string,
): Promise<void> {
  const nowSec = Math.floor(ctx.now / 1000);
  const endedSec = typeof more["session_ended"] === "number" ? more["session_ended"] : nowSec;
  const { session_began: _began, ...rest } = more;
  const ended: SessionRecord = {
    ...session,
    endedSec,
    data: { ...session.data, ...rest, why_session_closed: why },
  };
  await record(ctx, device, ended, why, false);
}

async function open(ctx: ProjectContext, device: DeviceRecord, more: JsonObject, why: string): Promise<void> {
  const nowSec = Math.floor(ctx.now / 1000);
  const beganSec = typeof more["session_began"] === "number" ? more["session_began"] : nowSec;
  // Always the hub's own UID: one given could name another device's session.
  const uid = ctx.services.ids.timeUuid(ctx.now);
  const { session_ended: _ended, session_began: _began, ...rest } = more;
  const session: SessionRecord = {
    uid,
    deviceUid: device.uid,
    projectUid: device.projectUid,
    beganSec,
    endedSec: null,
    firstSync: false,
    data: { ...rest, product: device.productUid },
  };
  await record(ctx, device, session, why, true);
}

/** A session begun or ended: its record, its `_session.qo` event, the device (not) connected by it. */
async function record(
  ctx: ProjectContext,
  device: DeviceRecord,
  session: SessionRecord,
  why: string,
  connected: boolean,
): Promise<void> {
  await ctx.services.store.telemetry.addSession(session);
  await sessionEvent(ctx, device, session, why);
  await ctx.services.store.devices.putDevice({
    uid: device.uid,
    projectUid: device.projectUid,
    productUid: device.productUid,
    connected,
    lastActivity: ctx.now,
  });
}

/**
 * Sessions of devices without a module of their own, told by the service that speaks for them:
 * kept as the device's sessions (GetDeviceSessions) with `session.begin` and `session.end` events
 * in `_session.qo`, as the device sync writes them. The body is a DeviceSession: its typed members
 * are kept, the hub names the session (a UID of its own), `session_began` and
 * `session_ended` are its times (else now).
 */
export function registerExtDeviceSessionRoutes(router: HubRouter): void {
  const withDevice =
    (work: (ctx: ProjectContext, device: DeviceRecord, more: JsonObject) => Promise<void>) =>
    async (ctx: ProjectContext) => {
      const more = given(ctx);
      const device = await externalDevice(ctx, ctx.params.deviceUID!, ctx.params.productUID!);
      if (device) await ctx.services.store.transaction(() => work(ctx, device, more));
      return {};
    };
  const ext = "/v1/products/:productUID/ext-devices/:deviceUID/session";
  // A session open already is closed and a new one opened.
  router.project(
    "POST",
    `${ext}/open`,
    "developer",
    withDevice(async (ctx, device, more) => {
      const current = await openSession(ctx, device);
      if (current) await close(ctx, device, current, {}, "replaced by a new session");
      await open(ctx, device, more, "external device session opened");
    }),
  );
  // Closes the open session, if any.
  router.project(
    "POST",
    `${ext}/close`,
    "developer",
    withDevice(async (ctx, device, more) => {
      const current = await openSession(ctx, device);
      if (current) await close(ctx, device, current, more, "external device session closed");
    }),
  );
  // UpdateLegacyWebhookSession: the open session takes the members given; without one, one opens.
  router.project(
    "PUT",
    "/v1/products/:productUID/devices/:deviceUID/webhook-session",
    "developer",
    withDevice(async (ctx, device, more) => {
      const current = await openSession(ctx, device);
      if (!current) return open(ctx, device, more, "webhook session opened");
      const { session_began: _began, session_ended: _ended, ...rest } = more;
      await ctx.services.store.telemetry.addSession({ ...current, data: { ...current.data, ...rest } });
      await ctx.services.store.devices.putDevice({
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        connected: true,
        lastActivity: ctx.now,
      });
    }),
  );
}
