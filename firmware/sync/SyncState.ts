import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { countChanges } from "../storage/noteChanges.js";
import type { Notebox } from "../storage/Notebox.js";
import type { Notefile } from "../storage/Notefile.js";

export {
  addUsage,
  NO_TRAFFIC,
  USAGE_KEY,
  usageRecord,
  type Traffic,
  type UsageRecord,
} from "./UsageCounters.js";

/** Configuration record of what the sync engine keeps in flash. */
export const SYNC_STATE_KEY = "sync";

export interface SyncState {
  /** The tracker session agreed with the hub ("" before the first session). */
  readonly tracker?: string;
  /** Epoch seconds of the last completed sync. */
  readonly completed?: number;
  /** The module has completed a session at least once (`card.status` `sync`). */
  readonly ever?: boolean;
  /** The hub this state belongs to; another hub starts a new tracker session. */
  readonly hub?: string;
}

export function syncState(notebox: Notebox): SyncState {
  return notebox.config<SyncState>(SYNC_STATE_KEY) ?? {};
}

export function setSyncState(notebox: Notebox, change: Partial<SyncState>): void {
  notebox.setConfig(SYNC_STATE_KEY, { ...syncState(notebox), ...change });
}

/**
 * Changes of a notefile the hub has not received yet: everything after the hub tracker's
 * position (deletes included) in notefiles that go up to the hub; inbound queues and `.dbx`
 * files never have any. The sync engine advances `SYNC_TRACKER` as the hub acknowledges.
 */
export function pendingUpload(notebox: Notebox, file: Notefile): number {
  if (file.kind.direction !== "out" && file.kind.direction !== "both") return 0;
  return countChanges(file, notebox.trackerPosition(SYNC_TRACKER, file.name) ?? 0, true);
}

/** Changes of all the notefiles that sync, still to be sent to the hub. */
export function pendingOutbound(notebox: Notebox): number {
  let pending = 0;
  for (const file of notebox.files()) pending += pendingUpload(notebox, file);
  return pending;
}
