import { HubApiError, type HubApi } from "../runtime/HubApi.js";

/** Environment variables by scope, as `world.hubEnv` takes them. */
export interface HubEnvScopes {
  readonly device?: Readonly<Record<string, string>>;
  readonly fleet?: Readonly<Record<string, string>>;
  readonly project?: Readonly<Record<string, string>>;
}

/** The fleet a scenario's device is put in for fleet-scope variables. */
export const SCENARIO_FLEET = "scenario";

/** Checks the names and values of `world.hubEnv`'s scopes. */
export function checkHubEnvScopes(scopes: HubEnvScopes): void {
  for (const scope of ["device", "fleet", "project"] as const) {
    for (const [name, text] of Object.entries(scopes[scope] ?? {})) {
      if (name === "" || typeof text !== "string")
        throw new Error(`hub env ${scope}: "${name}" needs a string value`);
    }
  }
}

/** Replaces one level's variables: those not given are deleted, the others set. */
async function replace(
  current: Record<string, string>,
  wanted: Readonly<Record<string, string>>,
  set: (vars: Readonly<Record<string, string>>) => Promise<unknown>,
  remove: (key: string) => Promise<void>,
): Promise<void> {
  for (const key of Object.keys(current)) if (!(key in wanted)) await remove(key);
  if (Object.keys(wanted).length > 0) await set(wanted);
}

/** The device as the hub knows it: provisioned now (with the hub's product) if it never synced. */
async function ensureDevice(api: HubApi, deviceUid: string): Promise<string[]> {
  try {
    const device = await api.getDevice(deviceUid);
    return Array.isArray(device["fleet_uids"]) ? (device["fleet_uids"] as string[]) : [];
  } catch (error) {
    if (!(error instanceof HubApiError) || error.status !== 404) throw error;
    await api.provisionDevice(deviceUid);
    return [];
  }
}

/**
 * Sets a hub's environment variables through its REST API, as a person would on the hub: each
 * scope given replaces that scope's variables (device: the device's own; fleet: those of the
 * scenario's fleet, which the device is put in; project: the project's). The module gets them at
 * its next sync, as in reality.
 */
export async function setHubEnvironment(api: HubApi, deviceUid: string, scopes: HubEnvScopes): Promise<void> {
  checkHubEnvScopes(scopes);
  if (scopes.project !== undefined) {
    await replace(
      await api.getProjectEnvironmentVariables(),
      scopes.project,
      (vars) => api.setProjectEnvironmentVariables(vars),
      (key) => api.deleteProjectEnvironmentVariable(key),
    );
  }
  if (scopes.device === undefined && scopes.fleet === undefined) return;
  const fleets = await ensureDevice(api, deviceUid);
  if (scopes.device !== undefined) {
    await replace(
      await api.getDeviceEnvironmentVariables(deviceUid),
      scopes.device,
      (vars) => api.setDeviceEnvironmentVariables(deviceUid, vars),
      (key) => api.deleteDeviceEnvironmentVariable(deviceUid, key),
    );
  }
  if (scopes.fleet !== undefined) {
    const fleet =
      (await api.getFleets()).find((f) => f["label"] === SCENARIO_FLEET) ??
      (await api.createFleet({ label: SCENARIO_FLEET }));
    const fleetUid = String(fleet["uid"]);
    if (!fleets.includes(fleetUid)) await api.addDeviceToFleets(deviceUid, [fleetUid]);
    await replace(
      await api.getFleetEnvironmentVariables(fleetUid),
      scopes.fleet,
      (vars) => api.setFleetEnvironmentVariables(fleetUid, vars),
      (key) => api.deleteFleetEnvironmentVariable(fleetUid, key),
    );
  }
}
