import type { JsonObject } from "../../core/json.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceFilter, DeviceRecord } from "../store/records.js";

/** Every device of the project the filter matches, page after page. */
export async function listAllDevices(
  store: HubStore,
  projectUid: string,
  filter: DeviceFilter = {},
): Promise<DeviceRecord[]> {
  const out: DeviceRecord[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.devices.listDevices(projectUid, filter, { offset, limit: 1000 });
    out.push(...page.items);
    if (!page.hasMore) return out;
  }
}

/** A serial number pattern as the definition has it (`*`, `?`, `[...]`) as a regular expression. */
export function globPattern(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        const body = glob.slice(i + 1, end);
        const negated = body.startsWith("!") || body.startsWith("^");
        const set = (negated ? body.slice(1) : body).replace(/[\\\]^]/g, (x) => `\\${x}`);
        out += `[${negated ? "^" : ""}${set}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\\]]/g, (x) => `\\${x}`);
  }
  return new RegExp(`^${out}$`);
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/**
 * The devices a job's `select` names, in UID order: all of the project's, or those listed by UID,
 * whose serial number matches one of the patterns, or that are in one of the fleets (any of them).
 * UIDs of devices not in the project are left out.
 */
export async function selectDevices(
  store: HubStore,
  projectUid: string,
  select: unknown,
): Promise<DeviceRecord[]> {
  const s = (select !== null && typeof select === "object" ? select : {}) as JsonObject;
  const all = await listAllDevices(store, projectUid);
  if (s.all_devices === true) return all;
  const uids = new Set(strings(s.devices));
  const patterns = strings(s.devices_by_sn).map(globPattern);
  const fleets = new Set(strings(s.devices_in_fleets));
  return all.filter(
    (d) =>
      uids.has(d.uid) ||
      patterns.some((p) => p.test(d.serialNumber ?? "")) ||
      d.fleetUids.some((f) => fleets.has(f)),
  );
}
