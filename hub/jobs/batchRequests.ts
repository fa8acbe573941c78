import type { JsonObject } from "../../core/json.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";

/** BatchJobRequests as the runner reads them. */
export interface BatchRequests {
  vars_to_set?: Record<string, string>;
  vars_to_default?: Record<string, string>;
  fleets_to_join?: string[];
  fleets_to_leave?: string[];
  fleets_to_default?: string[];
  enable?: boolean;
  disable?: boolean;
  connectivity_assurance_enable?: boolean;
  connectivity_assurance_disable?: boolean;
  sn_to_set?: string;
  sn_to_default?: string;
  provision_product?: string;
}

/** A device's requests: the job's defaults with the device's own requests over them, field by field. */
export function requestsFor(definition: JsonObject, deviceUid: string): BatchRequests {
  const defaults = (definition.default_requests ?? {}) as BatchRequests;
  const own = ((definition.device_requests ?? {}) as Record<string, BatchRequests>)[deviceUid] ?? {};
  return { ...defaults, ...own };
}

/** What one device's requests did (or, in a dry run, would do): the run report's entry for it. */
export type DeviceOutcome = JsonObject & { status: string };

/**
 * Applies a device's requests (only works out what would change when `dryRun`). Variables set to
 * `-` are cleared; defaults apply only where nothing is set. A fleet of another project (or none)
 * is an error for the device, which is then left unchanged. Returns the device's report entry and
 * whether its environment changed (the device is then told, as a change through the API tells it).
 */
export async function applyRequests(
  store: HubStore,
  device: DeviceRecord,
  r: BatchRequests,
  dryRun: boolean,
  now: number,
): Promise<{ outcome: DeviceOutcome; envChanged: boolean }> {
  const fleetUids = [
    ...(r.fleets_to_join ?? []),
    ...(r.fleets_to_leave ?? []),
    ...(r.fleets_to_default ?? []),
  ];
  for (const uid of fleetUids) {
    const fleet = await store.projects.getFleet(uid);
    if (!fleet || fleet.projectUid !== device.projectUid) {
      return {
        outcome: { status: "error", error: `fleet ${uid} is not a fleet of this project` },
        envChanged: false,
      };
    }
  }
  const outcome: DeviceOutcome = { status: "completed" };
  const envChanged = await applyVars(store, device, r, dryRun, outcome, now);
  const join = [...(r.fleets_to_join ?? [])].filter((f) => !device.fleetUids.includes(f));
  if (device.fleetUids.length === 0)
    join.push(...(r.fleets_to_default ?? []).filter((f) => !join.includes(f)));
  const leave = (r.fleets_to_leave ?? []).filter((f) => device.fleetUids.includes(f) && !join.includes(f));
  if (join.length > 0) outcome.fleets_joined = join;
  if (leave.length > 0) outcome.fleets_left = leave;
  const disabled = r.disable === true ? true : r.enable === true ? false : undefined;
  if (disabled !== undefined && disabled !== device.disabled)
    outcome[disabled ? "disabled" : "enabled"] = true;
  const assurance =
    r.connectivity_assurance_enable === true
      ? true
      : r.connectivity_assurance_disable === true
        ? false
        : undefined;
  if (assurance !== undefined && assurance !== device.connectivityAssurance) {
    outcome.connectivity_assurance = assurance;
  }
  const sn = serialNumber(device, r);
  if (sn !== undefined) outcome.sn_set = sn ?? "";
  if (r.provision_product !== undefined) outcome.provision_product = "already provisioned";
  if (!dryRun) {
    if (join.length > 0) await store.devices.addToFleets(device.uid, join);
    if (leave.length > 0) await store.devices.removeFromFleets(device.uid, leave);
    if (outcome.disabled || outcome.enabled) await store.devices.setDisabled(device.uid, disabled!);
    if (outcome.connectivity_assurance !== undefined)
      await store.devices.setConnectivityAssurance(device.uid, assurance!);
    if (sn !== undefined) {
      await store.devices.putDevice({
        uid: device.uid,
        projectUid: device.projectUid,
        productUid: device.productUid,
        serialNumber: sn,
      });
    }
  }
  return { outcome, envChanged };
}

/** The serial number to set: undefined when it stays, null to clear it. */
function serialNumber(device: DeviceRecord, r: BatchRequests): string | null | undefined {
  if (r.sn_to_set !== undefined) {
    const next = r.sn_to_set === "-" ? null : r.sn_to_set;
    return next === (device.serialNumber ?? null) ? undefined : next;
  }
  if (r.sn_to_default !== undefined && !device.serialNumber) return r.sn_to_default;
  return undefined;
}

async function applyVars(
  store: HubStore,
  device: DeviceRecord,
  r: BatchRequests,
  dryRun: boolean,
  outcome: DeviceOutcome,
  now: number,
): Promise<boolean> {
  const scope = { kind: "device" as const, uid: device.uid };
  const current = new Map((await store.env.get(scope)).map((v) => [v.key, v.value]));
  const set: Record<string, string> = {};
  const cleared: string[] = [];
  for (const [key, value] of Object.entries(r.vars_to_default ?? {})) if (!current.has(key)) set[key] = value;
  for (const [key, value] of Object.entries(r.vars_to_set ?? {})) {
    if (value === "-") {
      delete set[key];
      if (current.has(key)) cleared.push(key);
    } else if (current.get(key) !== value) set[key] = value;
  }
  if (Object.keys(set).length > 0) outcome.vars_set = set;
  if (cleared.length > 0) outcome.vars_cleared = cleared;
  if (dryRun) return false;
  if (Object.keys(set).length > 0) await store.env.set(scope, set, now);
  for (const key of cleared) await store.env.delete(scope, key);
  return Object.keys(set).length + cleared.length > 0;
}
