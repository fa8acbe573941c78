import { SYNC_TRACKER } from "../../protocol/trackers.js";
import { countChanges } from "../storage/noteChanges.js";
import type { Notebox } from "../storage/Notebox.js";
import type { Notefile } from "../storage/Notefile.js";

/** Configuration record of what the sync engine keeps in flash. */
export const SYNC_STATE_KEY = "sync";
/** Configuration record of the traffic counters (`card.usage.get`). */
export const USAGE_KEY = "sync.usage";

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

/** Traffic one session carried, counted from the messages themselves. */
export interface Traffic {
  bytes_sent: number;
  bytes_received: number;
  notes_sent: number;
  notes_received: number;
}

export const NO_TRAFFIC: Traffic = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };

/**
 * The counters of `card.usage.get`: totals since they were last reset, and hourly buckets of the
 * last 30 days (older ones fold into the totals only), so `1hour`, `1day` and `30day` answer from
 * what was really sent and received.
 */
export interface UsageRecord {
  /** Epoch seconds the counters started. */
  readonly since: number;
  readonly total: Traffic & { sessions_standard: number; sessions_secure: number };
  /** `[hour (epoch seconds / 3600), bytes_sent, bytes_received, notes_sent, notes_received, sessions]`. */
  readonly hours: readonly (readonly number[])[];
}

const HOURS_KEPT = 30 * 24;

export function usageRecord(notebox: Notebox, now: number): UsageRecord {
  return (
    notebox.config<UsageRecord>(USAGE_KEY) ?? {
      since: now,
      total: { ...NO_TRAFFIC, sessions_standard: 0, sessions_secure: 0 },
      hours: [],
    }
  );
}

/** Adds one session's traffic at `now` (epoch seconds). */
export function addUsage(notebox: Notebox, now: number, traffic: Traffic, secure: boolean): void {
  const record = usageRecord(notebox, now);
  const hour = Math.floor(now / 3600);
  const hours = record.hours.filter((h) => h[0]! > hour - HOURS_KEPT).map((h) => [...h]);
  let bucket = hours.find((h) => h[0] === hour);
  if (!bucket) hours.push((bucket = [hour, 0, 0, 0, 0, 0]));
  bucket[1]! += traffic.bytes_sent;
  bucket[2]! += traffic.bytes_received;
  bucket[3]! += traffic.notes_sent;
  bucket[4]! += traffic.notes_received;
  bucket[5]! += 1;
  const total = { ...record.total };
  total.bytes_sent += traffic.bytes_sent;
  total.bytes_received += traffic.bytes_received;
  total.notes_sent += traffic.notes_sent;
  total.notes_received += traffic.notes_received;
  if (secure) total.sessions_secure++;
  else total.sessions_standard++;
  notebox.setConfig(USAGE_KEY, { since: record.since, total, hours });
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
