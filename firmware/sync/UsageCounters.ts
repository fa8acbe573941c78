import type { Notebox } from "../storage/Notebox.js";

/** Configuration record of the traffic counters' totals (`card.usage.get`). */
export const USAGE_KEY = "sync.usage";
/** Prefix of the records of one UTC day's hourly buckets each: `sync.usage/<epoch days>`. */
export const USAGE_DAY_PREFIX = `${USAGE_KEY}/`;

/** Traffic one session carried, counted from the messages themselves. */
export interface Traffic {
  bytes_sent: number;
  bytes_received: number;
  notes_sent: number;
  notes_received: number;
}

export const NO_TRAFFIC: Traffic = { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };

/** `[hour (epoch seconds / 3600), bytes_sent, bytes_received, notes_sent, notes_received, sessions]`. */
export type UsageBucket = readonly number[];

/**
 * The counters of `card.usage.get`: totals since they were last reset, and hourly buckets of the
 * last 30 days (older ones fold into the totals only), so `1hour`, `1day` and `30day` answer from
 * what was really sent and received.
 */
export interface UsageRecord {
  /** Epoch seconds the counters started. */
  readonly since: number;
  readonly total: Traffic & { sessions_standard: number; sessions_secure: number };
  /** The hourly buckets of the 30 days up to the last session, oldest first. */
  readonly hours: readonly UsageBucket[];
}

/**
 * What `sync.usage` holds: the totals, and the hour of the last session (the 30 days of buckets
 * end there). Flash written before the buckets had a record per day holds them here, in `hours`:
 * they are read as they are and moved to day records at the next session.
 */
interface TotalsRecord {
  readonly since: number;
  readonly total: UsageRecord["total"];
  readonly last?: number;
  readonly hours?: readonly UsageBucket[];
}

const HOURS_KEPT = 30 * 24;

function dayKey(day: number): string {
  return `${USAGE_DAY_PREFIX}${day}`;
}

function totalsRecord(notebox: Notebox, now: number): TotalsRecord {
  return (
    notebox.config<TotalsRecord>(USAGE_KEY) ?? {
      since: now,
      total: { ...NO_TRAFFIC, sessions_standard: 0, sessions_secure: 0 },
    }
  );
}

/** The counters as `card.usage.get` reads them, from either format of the flash. */
export function usageRecord(notebox: Notebox, now: number): UsageRecord {
  const totals = totalsRecord(notebox, now);
  const days = notebox
    .configKeys(USAGE_DAY_PREFIX)
    .map((key) => Number(key.slice(USAGE_DAY_PREFIX.length)))
    .sort((a, b) => a - b);
  const hours = [...(totals.hours ?? [])];
  for (const day of days) hours.push(...(notebox.config<UsageBucket[]>(dayKey(day)) ?? []));
  const last = totals.last ?? Math.max(-Infinity, ...hours.map((h) => h[0]!));
  return {
    since: totals.since,
    total: totals.total,
    hours: hours.filter((h) => h[0]! > last - HOURS_KEPT).sort((a, b) => a[0]! - b[0]!),
  };
}

/**
 * Adds one session's traffic at `now` (epoch seconds): rewrites the totals and the buckets of the
 * session's day, nothing else (a new day also drops the days that left the 30 days).
 */
export function addUsage(notebox: Notebox, now: number, traffic: Traffic, secure: boolean): void {
  const record = totalsRecord(notebox, now);
  const hour = Math.floor(now / 3600);
  const day = Math.floor(hour / 24);
  if (record.hours) moveToDays(notebox, record.hours, hour);
  const stored = notebox.config<UsageBucket[]>(dayKey(day));
  if (!stored) dropOldDays(notebox, hour);
  const buckets = stored ? [...stored] : [];
  let at = buckets.findIndex((h) => h[0] === hour);
  if (at < 0) at = buckets.push([hour, 0, 0, 0, 0, 0]) - 1;
  const b = buckets[at]!;
  buckets[at] = [
    hour,
    b[1]! + traffic.bytes_sent,
    b[2]! + traffic.bytes_received,
    b[3]! + traffic.notes_sent,
    b[4]! + traffic.notes_received,
    b[5]! + 1,
  ];
  notebox.setConfig(dayKey(day), buckets);
  const total = { ...record.total };
  total.bytes_sent += traffic.bytes_sent;
  total.bytes_received += traffic.bytes_received;
  total.notes_sent += traffic.notes_sent;
  total.notes_received += traffic.notes_received;
  if (secure) total.sessions_secure++;
  else total.sessions_standard++;
  notebox.setConfig(USAGE_KEY, { since: record.since, total, last: hour });
}

/** Moves the buckets of a record in the former format (all in `sync.usage`) to day records. */
function moveToDays(notebox: Notebox, hours: readonly UsageBucket[], hour: number): void {
  const days = new Map<number, UsageBucket[]>();
  for (const h of hours) {
    if (h[0]! <= hour - HOURS_KEPT) continue;
    const day = Math.floor(h[0]! / 24);
    let list = days.get(day);
    if (!list) days.set(day, (list = [...(notebox.config<UsageBucket[]>(dayKey(day)) ?? [])]));
    list.push(h);
  }
  for (const [day, list] of days) notebox.setConfig(dayKey(day), list);
}

/** Deletes the day records whose every hour is older than the 30 days that end at `hour`. */
function dropOldDays(notebox: Notebox, hour: number): void {
  for (const key of notebox.configKeys(USAGE_DAY_PREFIX)) {
    const day = Number(key.slice(USAGE_DAY_PREFIX.length));
    if (!(day * 24 + 23 > hour - HOURS_KEPT)) notebox.setConfig(key, undefined);
  }
}
