import type { DeviceEnvironment } from "../../protocol/messages.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";

/**
 * The device's environment as the sync hands it to the module (`open`, and every `signals`
 * reply of a session held open): its own values, its fleets' (the newest change wins where two
 * fleets set a name), its project's, and when the newest of them changed (epoch seconds).
 */
export async function deviceEnvironment(store: HubStore, device: DeviceRecord): Promise<DeviceEnvironment> {
  const env = store.env;
  const own = await env.get({ kind: "device", uid: device.uid });
  const project = await env.get({ kind: "project", uid: device.projectUid });
  const fleet = new Map<string, { value: string; modified: number }>();
  let modified = 0;
  for (const uid of device.fleetUids) {
    for (const v of await env.get({ kind: "fleet", uid })) {
      const held = fleet.get(v.key);
      if (!held || v.modified > held.modified) fleet.set(v.key, { value: v.value, modified: v.modified });
      modified = Math.max(modified, v.modified);
    }
  }
  for (const v of [...own, ...project]) modified = Math.max(modified, v.modified);
  const map = (vars: readonly { key: string; value: string }[]) =>
    Object.fromEntries(vars.map((v) => [v.key, v.value]));
  return {
    device: map(own),
    fleet: Object.fromEntries([...fleet].map(([key, v]) => [key, v.value])),
    project: map(project),
    modified: Math.floor(modified / 1000),
  };
}
