import { EVENT_SORT_KEYS } from "../store/records.js";
import type { JsonObject } from "../../core/json.js";
import { dfuActionInvalid, dfuFilenameRequired } from "../dfu/dfuErrors.js";
import type { DfuRequestRecord, FirmwareType } from "../store/FirmwareStore.js";
import type { DeviceFilter, DeviceRecord } from "../store/records.js";
import { deviceFilter } from "./deviceRoutes.js";
import { firmwareType } from "./firmwareRoutes.js";
import { listAllDevices } from "../jobs/jobSelection.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { DFU_ACTION } from "./requestBodies.js";
import { resolveDevice } from "./resolve.js";
import { isoTime } from "./views.js";

const SORT_BY = EVENT_SORT_KEYS;

/** DeviceDfuStateMachine: one request and its steps. */
function stateMachine(r: DfuRequestRecord): JsonObject {
  return {
    ...(r.currentVersion ? { current_version: r.currentVersion } : {}),
    initiated: isoTime(r.initiated),
    ...(r.requestedVersion ? { requested_version: r.requestedVersion } : {}),
    updates: r.updates.map((n) => ({
      datetime: isoTime(n.when),
      phase: n.phase,
      status: n.status,
      ...(n.description ? { description: n.description } : {}),
    })),
  };
}

/** Every device of the project the filter matches (the actions apply to all of them). */
const allDevices = (ctx: ProjectContext, filter: DeviceFilter): Promise<DeviceRecord[]> =>
  listAllDevices(ctx.services.store, ctx.project.uid, filter);

/**
 * Device firmware updates: the update and cancel actions over the device filters, and the DFU
 * status and history of a project's devices and of one device.
 */
export function registerDfuRoutes(router: HubRouter): void {
  const { dfu } = router.services;
  const P = "/v1/projects/:projectUID";
  const D = `${P}/devices/:deviceUID`;

  const statusView = async (device: DeviceRecord, type: FirmwareType): Promise<JsonObject> => {
    const latest = await dfu.latest(device, type);
    return {
      device_uid: device.uid,
      current: dfu.current(device, type),
      dfu_in_progress: latest !== undefined && (latest.state === "pending" || latest.state === "active"),
      ...(latest ? { status: stateMachine(latest) } : {}),
    };
  };
  const historyView = async (device: DeviceRecord, type: FirmwareType): Promise<JsonObject> => ({
    device_uid: device.uid,
    current: dfu.current(device, type),
    history: (await dfu.history(device, type)).map(stateMachine),
  });

  router.project("POST", `${P}/dfu/:firmwareType/:action`, "developer", async (ctx) => {
    const type = firmwareType(ctx.params.firmwareType);
    const action = ctx.params.action;
    if (action !== "update" && action !== "cancel") throw dfuActionInvalid();
    const filter = deviceFilter(ctx);
    if (action === "update") {
      const filename = ctx.body(DFU_ACTION, { required: false }).filename;
      if (!filename) throw dfuFilenameRequired();
      // Refuses an unknown image before any device is touched.
      await ctx.services.firmware.get(ctx.project.uid, type, filename);
      await dfu.requestUpdate(ctx.project.uid, type, filename, await allDevices(ctx, filter));
    } else {
      ctx.body(DFU_ACTION, { required: false });
      await dfu.cancel(ctx.project.uid, type, await allDevices(ctx, filter));
    }
    return undefined;
  });

  for (const [kind, view] of [
    ["status", statusView],
    ["history", historyView],
  ] as const) {
    router.project("GET", `${P}/dfu/:firmwareType/${kind}`, "viewer", async (ctx) => {
      const type = firmwareType(ctx.params.firmwareType);
      ctx.query.oneOf("sortBy", SORT_BY);
      const order = ctx.query.oneOf("sortOrder", ["asc", "desc"] as const);
      const page = ctx.query.page();
      const result = await ctx.services.store.devices.listDevices(ctx.project.uid, deviceFilter(ctx), page);
      const devices = [];
      for (const device of result.items) devices.push(await view(device, type));
      if (order === "desc") devices.reverse();
      return { devices, has_more: result.hasMore };
    });

    router.project("GET", `${D}/dfu/:firmwareType/${kind}`, "viewer", async (ctx) => {
      const type = firmwareType(ctx.params.firmwareType);
      return view(await resolveDevice(ctx, ctx.params.deviceUID!), type);
    });
  }
}
