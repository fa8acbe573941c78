import { periodStart } from "./periodStart.js";
import type {
  AttemptCompletion,
  NewRouteQueueEntry,
  RouteLogFilter,
  RouteLogRecord,
  RouteLogRetention,
  RouteLogUsageRow,
  RouteQueueEntry,
  RouteRecord,
  RouteSource,
  RouteStore,
} from "../RouteStore.js";
import { StoreError } from "../StoreError.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

export interface RouteRow {
  uid: string;
  project_uid: string;
  label: string;
  type: string;
  schema: string;
  disabled: number;
  notes: string | null;
  settings: string;
  created: number;
  modified: number;
}

export interface QueueRow {
  seq: number;
  route_uid: string;
  project_uid: string;
  event_uid: string;
  attempt: number;
  due: number;
  source: string;
  begun: number;
}

export interface LogRow {
  project_uid: string;
  route_uid: string;
  event_uid: string;
  device_uid: string;
  file: string;
  date: number;
  duration: number;
  attn: number;
  status: string;
  text: string;
  url: string;
  source: string;
}

export const route = (r: RouteRow): RouteRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  label: r.label,
  type: r.type,
  schema: r.schema,
  disabled: bool(r.disabled),
  notes: r.notes,
  settings: storedJson(r.settings),
  created: r.created,
  modified: r.modified,
});

export const entry = (r: QueueRow): RouteQueueEntry => ({
  seq: r.seq,
  routeUid: r.route_uid,
  projectUid: r.project_uid,
  eventUid: r.event_uid,
  attempt: r.attempt,
  dueMs: r.due,
  source: r.source as RouteSource,
  begun: r.begun,
});

export const log = (r: LogRow): RouteLogRecord => ({
  projectUid: r.project_uid,
  routeUid: r.route_uid,
  eventUid: r.event_uid,
  deviceUid: r.device_uid,
  file: r.file,
  dateMs: r.date,
  durationMs: r.duration,
  attn: bool(r.attn),
  status: r.status,
  text: r.text,
  url: r.url,
  source: r.source as RouteSource,
});

const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");

/** Age pruning runs at most this often (ms of log time): it deletes by the `date` index. */
const AGE_PRUNE_EVERY_MS = 60_000;

export class SqliteRouteStore implements RouteStore {
  #retention: RouteLogRetention = { keepPerRoute: 0, maxAgeMs: 0 };
  /** Log time of the last age pruning (-Infinity: not yet). */
  #agePrunedAt = -Infinity;

  constructor(private readonly sql: SqliteConnection) {}

  setLogRetention(retention: RouteLogRetention): void {
    this.#retention = { ...retention };
    this.#agePrunedAt = -Infinity;
  }

  /**
   * Applies the retention after logs were written: per route written, the newest `keepPerRoute`
   * stay (one seek on the route's index to the first log beyond them, then a range delete); by
   * age, a range delete on the date index, at most once a minute of log time.
   */
  #prune(routeUids: Iterable<string>, newestMs: number): void {
    const { keepPerRoute, maxAgeMs } = this.#retention;
    if (keepPerRoute > 0) {
      for (const uid of routeUids) {
        const edge = this.sql.get<{ date: number; id: number }>(
          "SELECT date, id FROM route_logs WHERE route_uid = ? ORDER BY date DESC, id DESC LIMIT 1 OFFSET ?",
          uid,
          keepPerRoute - 1,
        );
        if (!edge) continue;
        this.sql.run(
          "DELETE FROM route_logs WHERE route_uid = ? AND (date < ? OR (date = ? AND id < ?))",
          uid,
          edge.date,
          edge.date,
          edge.id,
        );
      }
    }
    if (maxAgeMs > 0 && newestMs - this.#agePrunedAt >= AGE_PRUNE_EVERY_MS) {
      this.#agePrunedAt = newestMs;
      this.sql.run("DELETE FROM route_logs WHERE date < ?", newestMs - maxAgeMs);
    }
  }

  async createRoute(r: RouteRecord): Promise<void> {
    this.sql.run(
      `INSERT INTO routes (uid, project_uid, label, type, schema, disabled, notes, settings, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.uid,
      r.projectUid,
      r.label,
      r.type,
      r.schema,
      int(r.disabled),
      r.notes,
      JSON.stringify(r.settings),
      r.created,
      r.modified,
    );
  }

  async getRoute(uid: string): Promise<RouteRecord | undefined> {
    const row = this.sql.get<RouteRow>("SELECT * FROM routes WHERE uid = ?", uid);
    return row && route(row);
  }

  async listRoutes(projectUid: string): Promise<RouteRecord[]> {
    return this.sql
      .all<RouteRow>("SELECT * FROM routes WHERE project_uid = ? ORDER BY created, uid", projectUid)
      .map(route);
  }

  async updateRoute(r: RouteRecord): Promise<void> {
    const result = this.sql.run(
      `UPDATE routes SET label = ?, type = ?, schema = ?, disabled = ?, notes = ?, settings = ?, modified = ?
       WHERE uid = ?`,
      r.label,
      r.type,
      r.schema,
      int(r.disabled),
      r.notes,
      JSON.stringify(r.settings),
      r.modified,
      r.uid,
    );
    if (result.changes === 0) throw new StoreError("not-found", `route ${r.uid} not found`);
  }

  async deleteRoute(uid: string): Promise<boolean> {
    return this.sql.transaction(() => {
      this.sql.run("DELETE FROM route_queue WHERE route_uid = ?", uid);
      return this.sql.run("DELETE FROM routes WHERE uid = ?", uid).changes > 0;
    });
  }

  async enqueue(entries: NewRouteQueueEntry[], owner?: string): Promise<RouteQueueEntry[]> {
    if (entries.length === 0) return [];
    return this.sql.transaction(() =>
      entries.map((e) => {
        const result = this.sql.run(
          `INSERT INTO route_queue (route_uid, project_uid, event_uid, attempt, due, source, owner)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          e.routeUid,
          e.projectUid,
          e.eventUid,
          e.attempt,
          e.dueMs,
          e.source,
          owner ?? null,
        );
        return { ...e, seq: Number(result.lastInsertRowid) };
      }),
    );
  }

  async pendingDeliveries(): Promise<RouteQueueEntry[]> {
    return this.sql.all<QueueRow>("SELECT * FROM route_queue ORDER BY seq").map(entry);
  }

  async claimDeliveries(owner: string, live: readonly string[]): Promise<RouteQueueEntry[]> {
    // One process writes a SQLite file: the claim is one transaction, nothing to pass over.
    return this.sql.transaction(() => {
      const others = live.map(() => "?").join(", ");
      const free = live.length > 0 ? `owner IS NULL OR owner NOT IN (${others})` : "1";
      const rows = this.sql.all<QueueRow>(`SELECT * FROM route_queue WHERE ${free} ORDER BY seq`, ...live);
      for (const row of rows) this.sql.run("UPDATE route_queue SET owner = ? WHERE seq = ?", owner, row.seq);
      return rows.map(entry);
    });
  }

  async completeAttempts(completions: readonly AttemptCompletion[]): Promise<void> {
    if (completions.length === 0) return;
    this.sql.transaction(() => {
      const written = new Set<string>();
      let newest = -Infinity;
      for (const { seq, log: entryLog, next } of completions) {
        const changed = next
          ? this.sql.run(
              "UPDATE route_queue SET attempt = ?, due = ?, source = ?, begun = 0 WHERE seq = ?",
              next.attempt,
              next.dueMs,
              next.source,
              seq,
            ).changes
          : this.sql.run("DELETE FROM route_queue WHERE seq = ?", seq).changes;
        if (changed > 0 && entryLog) {
          this.#insertLog(entryLog);
          written.add(entryLog.routeUid);
          newest = Math.max(newest, entryLog.dateMs);
        }
      }
      if (written.size > 0) this.#prune(written, newest);
    });
  }

  async beginAttempt(seq: number): Promise<void> {
    this.sql.run("UPDATE route_queue SET begun = begun + 1 WHERE seq = ?", seq);
  }

  async abandonAttempt(seq: number): Promise<void> {
    this.sql.run("UPDATE route_queue SET begun = MAX(begun - 1, 0) WHERE seq = ?", seq);
  }

  async addLog(entryLog: RouteLogRecord): Promise<void> {
    this.sql.transaction(() => {
      this.#insertLog(entryLog);
      this.#prune([entryLog.routeUid], entryLog.dateMs);
    });
  }

  #insertLog(l: RouteLogRecord): void {
    this.sql.run(
      `INSERT INTO route_logs (project_uid, route_uid, event_uid, device_uid, file, date, duration, attn, status, text, url, source)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      l.projectUid,
      l.routeUid,
      l.eventUid,
      l.deviceUid,
      l.file,
      l.dateMs,
      l.durationMs,
      int(l.attn),
      l.status,
      l.text,
      l.url,
      l.source,
    );
  }

  async listLogs(
    projectUid: string,
    filter: RouteLogFilter,
    page: { offset: number; limit: number },
  ): Promise<RouteLogRecord[]> {
    const where: string[] = ["project_uid = ?"];
    const params: unknown[] = [projectUid];
    const add = (clause: string, ...values: unknown[]): void => {
      where.push(clause);
      params.push(...values);
    };
    if (filter.routeUid !== undefined) add("route_uid = ?", filter.routeUid);
    if (filter.eventUid !== undefined) add("event_uid = ?", filter.eventUid);
    if (filter.deviceUids?.length)
      add(`device_uid IN (${placeholders(filter.deviceUids.length)})`, ...filter.deviceUids);
    if (filter.files?.length) add(`file IN (${placeholders(filter.files.length)})`, ...filter.files);
    if (filter.systemFilesOnly) add("substr(file, 1, 1) = '_'");
    if (filter.startSec !== undefined) add("date >= ?", filter.startSec * 1000);
    if (filter.endSec !== undefined) add("date < ?", (filter.endSec + 1) * 1000);
    const statuses = filter.routingStatus ?? [];
    if (statuses.length === 1) add("attn = ?", int(statuses[0] === "failure"));
    if (filter.responseStatus?.length)
      add(`status IN (${placeholders(filter.responseStatus.length)})`, ...filter.responseStatus);
    const dir = filter.sortOrder === "asc" ? "ASC" : "DESC";
    const order =
      filter.sortBy === "event" ? `event_uid ${dir}, date ${dir}, id ${dir}` : `date ${dir}, id ${dir}`;
    // mostRecentOnly picks each event's newest attempt before the other filters apply to it.
    const source = filter.mostRecentOnly
      ? `(SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY route_uid, event_uid ORDER BY date DESC, id DESC) AS newest
           FROM route_logs WHERE project_uid = ?) WHERE newest = 1)`
      : "route_logs";
    const rows = this.sql.all<LogRow>(
      `SELECT * FROM ${source} WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ? OFFSET ?`,
      ...(filter.mostRecentOnly ? [projectUid] : []),
      ...params,
      page.limit,
      page.offset,
    );
    return rows.map(log);
  }

  async logUsage(
    projectUid: string,
    query: {
      period: "day" | "week" | "month";
      fromSec: number;
      toSec: number;
      routeUids: string[];
      byProject: boolean;
    },
  ): Promise<RouteLogUsageRow[]> {
    const t = "(date / 1000)";
    const routes = query.routeUids.length ? `AND route_uid IN (${placeholders(query.routeUids.length)})` : "";
    const key = query.byProject ? "''" : "route_uid";
    const rows = this.sql.all<{
      route_uid: string;
      period: number;
      ok: number;
      failed: number;
      latency: number | null;
    }>(
      `SELECT ${key} AS route_uid, ${periodStart(query.period, t)} AS period,
         sum(attn = 0) AS ok, sum(attn = 1) AS failed,
         avg(CASE WHEN duration > 0 THEN duration END) AS latency
       FROM route_logs
       WHERE project_uid = ? AND date >= ? AND date < ? ${routes}
       GROUP BY 1, 2 ORDER BY 2, 1`,
      projectUid,
      query.fromSec * 1000,
      query.toSec * 1000,
      ...query.routeUids,
    );
    return rows.map((r) => ({
      routeUid: r.route_uid,
      periodSec: r.period,
      successful: r.ok,
      failed: r.failed,
      avgLatencyMs: r.latency,
    }));
  }
}
