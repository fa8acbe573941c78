import type { JsonObject } from "../../core/json.js";
import { WATCHDOG_FILE } from "../devices/FleetWatchdogs.js";
import type {
  EventUsageRow,
  HealthUsageRow,
  SessionUsageRow,
  UsageAggregate,
  UsagePeriod,
} from "../store/records.js";
import { isoTime } from "./views.js";

/**
 * The Usage API's answers, rolled up from the store's per-device rows: the store counts, these
 * functions shape (distinct devices need the devices, so the store never sums across them). Every
 * answer lists its data points by period, then by key, and keeps the first `limit` of them;
 * `truncated` says some were left out.
 */

/** The member that names a row's key, by aggregate (the project's rows have none). */
const KEY_MEMBER: Record<UsageAggregate, string | null> = { device: "device", fleet: "fleet", project: null };

/** Days in the period starting at `periodSec` (a month's own length). */
export function daysInPeriod(period: UsagePeriod, periodSec: number): number {
  if (period === "day") return 1;
  if (period === "week") return 7;
  const start = new Date(periodSec * 1000);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) - 86_400_000).getUTCDate();
}

/** Keeps the first `limit` points in (period, key) order. */
function firstPoints<T extends { periodSec: number; key: string }>(
  points: T[],
  limit: number,
): { kept: T[]; truncated: boolean } {
  points.sort((a, b) => a.periodSec - b.periodSec || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { kept: points.slice(0, limit), truncated: points.length > limit };
}

function withKey(out: JsonObject, aggregate: UsageAggregate, key: string): JsonObject {
  const member = KEY_MEMBER[aggregate];
  return member === null ? out : { [member]: key, ...out };
}

/** Data usage's connectivity type of a transport kind; other transports (Wi-Fi, LoRaWAN) carry no metered data. */
function connectivity(transport: string): "cellular" | "satellite" | null {
  if (transport === "cell") return "cellular";
  if (transport === "ntn") return "satellite";
  return null;
}

/**
 * Get Data Usage: per key and connectivity type (and SIM, per device) the bytes the sessions
 * counted, per period: uplink is what the module sent (`period.bytes_sent`), downlink what it
 * received (`period.bytes_rcvd`).
 */
export function dataUsage(
  rows: readonly SessionUsageRow[],
  aggregate: UsageAggregate,
  limit: number,
): { data: JsonObject[]; truncated: boolean } {
  interface Entry {
    key: string;
    type: "cellular" | "satellite";
    iccid: string;
    devices: Set<string>;
    points: Map<number, { up: number; down: number }>;
  }
  const entries = new Map<string, Entry>();
  for (const r of rows) {
    const type = connectivity(r.transport);
    if (type === null) continue;
    const iccid = aggregate === "device" && type === "cellular" ? r.iccid : "";
    const id = JSON.stringify([r.key, type, iccid]);
    let entry = entries.get(id);
    if (!entry) {
      entry = { key: r.key, type, iccid, devices: new Set(), points: new Map() };
      entries.set(id, entry);
    }
    entry.devices.add(r.deviceUid);
    const point = entry.points.get(r.periodSec) ?? { up: 0, down: 0 };
    point.up += r.bytesSent;
    point.down += r.bytesReceived;
    entry.points.set(r.periodSec, point);
  }
  const ordered = [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  const points = ordered.flatMap((entry, index) =>
    [...entry.points].map(([periodSec, p]) => ({ periodSec, key: String(index).padStart(9, "0"), entry, p })),
  );
  const { kept, truncated } = firstPoints(points, limit);
  const out = new Map<Entry, JsonObject[]>();
  for (const { periodSec, entry, p } of kept) {
    const list = out.get(entry) ?? [];
    list.push({
      period: isoTime(periodSec * 1000),
      total_bytes: p.up + p.down,
      uplink_bytes: p.up,
      downlink_bytes: p.down,
    });
    out.set(entry, list);
  }
  const data = ordered
    .filter((entry) => out.has(entry))
    .map((entry) => {
      const item: JsonObject = { type: entry.type };
      if (entry.iccid !== "") item.iccid = entry.iccid;
      item.device_count = entry.devices.size;
      item.data = out.get(entry)!;
      return withKey(item, aggregate, entry.key);
    });
  return { data, truncated };
}

/**
 * Get Events Usage: per key and period the events the hub received (billable and platform ones,
 * watchdog events, per notefile when asked), the devices that sent them, and boots and firmware
 * updates from the health log.
 */
export function eventsUsage(
  rows: readonly EventUsageRow[],
  health: readonly HealthUsageRow[],
  options: { period: UsagePeriod; aggregate: UsageAggregate; limit: number; notefiles: boolean },
): { data: JsonObject[]; truncated: boolean } {
  interface Point {
    key: string;
    periodSec: number;
    total: number;
    platform: number;
    watchdog: number;
    devices: Set<string>;
    files: Map<string, number>;
    boots: number;
    updates: number;
  }
  const points = new Map<string, Point>();
  const point = (key: string, periodSec: number): Point => {
    const id = `${periodSec} ${key}`;
    let p = points.get(id);
    if (!p) {
      p = {
        key,
        periodSec,
        total: 0,
        platform: 0,
        watchdog: 0,
        devices: new Set(),
        files: new Map(),
        boots: 0,
        updates: 0,
      };
      points.set(id, p);
    }
    return p;
  };
  for (const r of rows) {
    const p = point(r.key, r.periodSec);
    p.total += r.events;
    if (!r.billable) p.platform += r.events;
    // Platform events are not billed (the definition's UsageEventsData); watchdog events are.
    if (r.file === WATCHDOG_FILE) p.watchdog += r.events;
    p.devices.add(r.deviceUid);
    p.files.set(r.file, (p.files.get(r.file) ?? 0) + r.events);
  }
  for (const h of health) {
    const p = point(h.key, h.periodSec);
    p.devices.add(h.deviceUid);
    p.boots += h.boots;
    p.updates += h.firmwareUpdates;
  }
  const { kept, truncated } = firstPoints([...points.values()], options.limit);
  const data = kept.map((p) => {
    const item: JsonObject = {
      period: isoTime(p.periodSec * 1000),
      total_events: p.total,
      billable_events: p.total - p.platform,
      platform_events: p.platform,
      watchdog_events: p.watchdog,
      total_devices: p.devices.size,
      total_reboots: p.boots,
      total_fw_updates: p.updates,
      total_days_in_period: daysInPeriod(options.period, p.periodSec),
    };
    if (options.notefiles) {
      item.notefiles = Object.fromEntries([...p.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return withKey(item, options.aggregate, p.key);
  });
  return { data, truncated };
}

/**
 * Get Sessions Usage: per key and period the sessions that began (first syncs and TLS ones among
 * them, and per kind of transport), the bytes they counted and the devices that held them.
 */
export function sessionsUsage(
  rows: readonly SessionUsageRow[],
  aggregate: UsageAggregate,
  limit: number,
): { sessions: JsonObject[]; truncated: boolean } {
  interface Point {
    key: string;
    periodSec: number;
    sessions: number;
    firstSync: number;
    tls: number;
    bytes: number;
    devices: Set<string>;
    transports: Map<string, number>;
  }
  const points = new Map<string, Point>();
  for (const r of rows) {
    const id = `${r.periodSec} ${r.key}`;
    let p = points.get(id);
    if (!p) {
      p = {
        key: r.key,
        periodSec: r.periodSec,
        sessions: 0,
        firstSync: 0,
        tls: 0,
        bytes: 0,
        devices: new Set(),
        transports: new Map(),
      };
      points.set(id, p);
    }
    p.sessions += r.sessions;
    p.firstSync += r.firstSyncSessions;
    p.tls += r.tlsSessions;
    p.bytes += r.bytesSent + r.bytesReceived;
    p.devices.add(r.deviceUid);
    p.transports.set(r.transport, (p.transports.get(r.transport) ?? 0) + r.sessions);
  }
  const { kept, truncated } = firstPoints([...points.values()], limit);
  const sessions = kept.map((p) =>
    withKey(
      {
        period: isoTime(p.periodSec * 1000),
        sessions: p.sessions,
        first_sync_sessions: p.firstSync,
        tls_sessions: p.tls,
        total_bytes: p.bytes,
        total_devices: p.devices.size,
        sessions_by_transport: Object.fromEntries(
          [...p.transports].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        ),
      },
      aggregate,
      p.key,
    ),
  );
  return { sessions, truncated };
}
