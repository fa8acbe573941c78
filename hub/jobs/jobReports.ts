import type { JsonObject } from "../../core/json.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";
import type { DeviceOutcome } from "./batchRequests.js";

/** The statuses a run ends with (the Job definition's terminal values of `last_run_status`). */
export const TERMINAL_STATUSES: readonly string[] = [
  "completed successfully",
  "dry run completed successfully",
  "completed with errors",
  "cancelled",
];

/** Epoch seconds of an epoch ms (the definition's Unix timestamps). */
export const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The per-device progress a run shows while it goes (`dev:... completed`, `dev:... updated: ...`). */
export function progressText(deviceUid: string, outcome: DeviceOutcome, dryRun: boolean): string {
  if (outcome.status === "error") return `${deviceUid} failed: ${String(outcome.error)}`;
  const changes = Object.keys(outcome).filter(
    (k) => k !== "status" && k !== "device_info" && k !== "device_vars",
  );
  if (changes.length === 0) return `${deviceUid} completed`;
  const what = changes
    .map((k) => {
      const v = outcome[k];
      if (Array.isArray(v)) return `${k} ${v.join(", ")}`;
      if (v !== null && typeof v === "object") return `${k} ${Object.keys(v).join(", ")}`;
      return `${k} ${String(v)}`;
    })
    .join("; ");
  return `${deviceUid} ${dryRun ? "would be updated" : "updated"}: ${what}`;
}

const varsOf = async (store: HubStore, scope: Parameters<HubStore["env"]["get"]>[0]): Promise<JsonObject> =>
  Object.fromEntries((await store.env.get(scope)).map((v) => [v.key, v.value]));

/** What a run's report adds about the project, as `report_options` asks (`app_info`, `app_vars`, `app_fleets`). */
export async function projectReport(
  store: HubStore,
  projectUid: string,
  options: JsonObject,
): Promise<JsonObject> {
  const out: JsonObject = {};
  if (options.app_info === true) {
    const project = await store.projects.getProject(projectUid);
    out.info = { uid: projectUid, label: project?.label ?? "" };
  }
  if (options.app_vars === true) out.vars = await varsOf(store, { kind: "project", uid: projectUid });
  if (options.app_fleets === true) {
    out.fleets = (await store.projects.listFleets(projectUid)).map((f) => ({ uid: f.uid, label: f.label }));
  }
  return out;
}

/** What a run's report adds about a device, as `report_options` asks (its state after the run). */
export async function deviceReport(
  store: HubStore,
  device: DeviceRecord,
  options: JsonObject,
): Promise<JsonObject> {
  const out: JsonObject = {};
  if (options.device_info === true) {
    out.device_info = {
      serial_number: device.serialNumber ?? "",
      product_uid: device.productUid,
      fleets: device.fleetUids,
      disabled: device.disabled,
      sku: device.sku ?? "",
    };
  }
  if (options.device_vars === true)
    out.device_vars = await varsOf(store, { kind: "device", uid: device.uid });
  if (options.device_health === true)
    out.device_health = { voltage: device.voltage, temperature: device.temperature };
  if (options.device_activity === true) {
    out.device_activity = {
      last_activity: device.lastActivity === null ? 0 : seconds(device.lastActivity),
      connected: device.connected,
    };
  }
  return out;
}
