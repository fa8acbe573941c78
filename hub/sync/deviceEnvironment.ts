import type { DeviceEnvironment } from "../../protocol/messages.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord, EnvVarRecord } from "../store/records.js";

/** The variables a device sees, as read from the store: its own, each of its fleets', its project's. */
export interface DeviceVariables {
  readonly own: readonly EnvVarRecord[];
  /** By fleet UID, in the device record's order. */
  readonly fleets: readonly (readonly [string, readonly EnvVarRecord[]])[];
  readonly project: readonly EnvVarRecord[];
}

/** Reads the variables of every scope the device sees. */
export async function deviceVariables(store: HubStore, device: DeviceRecord): Promise<DeviceVariables> {
  const env = store.env;
  const own = await env.get({ kind: "device", uid: device.uid });
  const project = await env.get({ kind: "project", uid: device.projectUid });
  const fleets: (readonly [string, readonly EnvVarRecord[]])[] = [];
  for (const uid of device.fleetUids) fleets.push([uid, await env.get({ kind: "fleet", uid })]);
  return { own, fleets, project };
}

/**
 * The device's environment as the sync hands it to the module (`open`, and every `signals`
 * reply of a session held open): its own values, its fleets' (the newest change wins where two
 * fleets set a name), its project's, and when the newest of them changed (epoch seconds).
 */
export async function deviceEnvironment(store: HubStore, device: DeviceRecord): Promise<DeviceEnvironment> {
  return environmentOf(await deviceVariables(store, device));
}

/** `deviceEnvironment` of variables already read. */
export function environmentOf(vars: DeviceVariables): DeviceEnvironment {
  const { own, project } = vars;
  const fleet = new Map<string, { value: string; modified: number }>();
  let modified = 0;
  for (const [, list] of vars.fleets) {
    for (const v of list) {
      const held = fleet.get(v.key);
      if (!held || v.modified > held.modified) fleet.set(v.key, { value: v.value, modified: v.modified });
      modified = Math.max(modified, v.modified);
    }
  }
  for (const v of [...own, ...project]) modified = Math.max(modified, v.modified);
  return {
    device: valuesByKey(own),
    fleet: Object.fromEntries([...fleet].map(([key, v]) => [key, v.value])),
    project: valuesByKey(project),
    modified: Math.floor(modified / 1000),
  };
}

/**
 * A variable as the firmware requests read it (`_fw`, `_fwc`): the device's own, else its fleets'
 * in UID order, else the project's; a blank value (after trimming) counts as unset.
 */
export function variableOf(vars: DeviceVariables, key: string): string | undefined {
  const own = setValue(vars.own, key);
  if (own !== undefined) return own;
  const fleets = [...vars.fleets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, list] of fleets) {
    const value = setValue(list, key);
    if (value !== undefined) return value;
  }
  return setValue(vars.project, key);
}

/** The value of `key` in `list`, trimmed; undefined when it is not there or blank. */
function setValue(list: readonly EnvVarRecord[], key: string): string | undefined {
  const value = list.find((v) => v.key === key)?.value.trim();
  return value === "" ? undefined : value;
}

/** A list of variables as an object of their values by key. */
function valuesByKey(list: readonly { key: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map((v) => [v.key, v.value]));
}
