import { DFU_TARGETS, type DfuTarget } from "../../protocol/messages.js";
import type { FirmwareType } from "../store/FirmwareStore.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";

/** The environment variable that asks a device to take an image of a type. */
export const DFU_ENV_VARS: Readonly<Record<FirmwareType, string>> = { host: "_fw", notecard: "_fwc" };

/** The module's name of each firmware type, and back. */
export const TARGET_OF: Readonly<Record<FirmwareType, DfuTarget>> = { host: "user", notecard: "card" };
export const TYPE_OF: Readonly<Record<DfuTarget, FirmwareType>> = { user: "host", card: "notecard" };

/** The states of a firmware request that is still under way. */
export const ACTIVE: ReadonlySet<string> = new Set(["pending", "active"]);

/** A device's variable as the firmware requests read it (blank: unset), from what the caller read. */
export type VariableOf = (key: string) => string | undefined;

/**
 * True when the `firmware` message's answer for the device would offer no image and change no
 * request (most sessions: no variable names an image, or the one named was taken already): then
 * the answer is known from two reads, without the nested transaction, the device's record read
 * again and its variables read per type that the full answer costs.
 */
export async function offersNothing(
  store: HubStore,
  device: DeviceRecord,
  variable: VariableOf,
): Promise<boolean> {
  for (const target of DFU_TARGETS) {
    const type = TYPE_OF[target];
    const name = variable(DFU_ENV_VARS[type]);
    const latest = await store.firmware.latestRequest(device.projectUid, device.uid, type);
    if (!isQuiet(name, latest)) return false;
  }
  return true;
}

/**
 * Whether the variable's value (`name`, undefined when unset) leaves a type's firmware as it is:
 * no image offered and no request opened or ended, given the device's latest request of the type.
 */
export function isQuiet(
  name: string | undefined,
  latest: { filename: string; state: string } | undefined,
): boolean {
  if (latest !== undefined && ACTIVE.has(latest.state)) return false;
  return name === undefined || latest?.filename === name;
}
