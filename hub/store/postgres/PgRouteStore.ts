import type {
  AttemptCompletion,
  NewRouteQueueEntry,
  RouteLogFilter,
  RouteLogRecord,
  RouteLogRetention,
  RouteLogUsageRow,
  RouteQueueEntry,
  RouteRecord,
  RouteStore,
} from "../RouteStore.js";
import { StoreError } from "../StoreError.js";
import { int } from "../sqlite/SqliteConnection.js";
import { entry, log, route, type LogRow, type QueueRow, type RouteRow } from "../sqlite/SqliteRouteStore.js";
import type { PgConnection } from "./PgConnection.js";
import { periodStart } from "./pgTelemetrySql.js";

/** Age pruning runs at most this often (ms of log time): it deletes by the `date` index. */
const AGE_PRUNE_EVERY_MS = 60_000;

/**
 * Routes, their delivery queue and their logs, on PostgreSQL. A queue entry is ended (completed,
 * retried) under its row lock, so that of several hub processes only one records an attempt.
 */
export class PgRouteStore implements RouteStore {
  #retention: RouteLogRetention = { keepPerRoute: 0, maxAgeMs: 0 };
  #agePrunedAt = -Infinity;

  constructor(private readonly sql: PgConnection) {}

  setLogRetention(retention: RouteLogRetention): void {
    this.#retention = { ...retention };
    this.#agePrunedAt = -Infinity;
  }

  async #prune(routeUids: Iterable<string>, newestMs: number): Promise<void> {
    const { keepPerRoute, maxAgeMs } = this.#retention;
    if (keepPerRoute > 0) {
      for (const uid of routeUids) {
        const edge = await this.sql.get<{ date: number; id: number }>(
          "SELECT date, id FROM route_logs WHERE route_uid = ? ORDER BY date DESC, id DESC LIMIT 1 OFFSET ?",
          uid,
          keepPerRoute - 1,
        );
        if (!edge) continue;
        await this.sql.run(
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
      await this.sql.run("DELETE FROM route_logs WHERE date < ?", newestMs - maxAgeMs);
    }
  }

  async createRoute(r: RouteRecord): Promise<void> {
    await this.sql.run(
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
    const row = await this.sql.get<RouteRow>("SELECT * FROM routes WHERE uid = ?", uid);
    return row && route(row);
  }

  async listRoutes(projectUid: string): Promise<RouteRecord[]> {
    const rows = await this.sql.all<RouteRow>(
      "SELECT * FROM routes WHERE project_uid = ? ORDER BY created, uid",
      projectUid,
    );
    return rows.map(route);
  }

  async updateRoute(r: RouteRecord): Promise<void> {
    const changed = await this.sql.run(
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
    if (changed === 0) throw new StoreError("not-found", `route ${r.uid} not found`);
  }

  async deleteRoute(uid: string): Promise<boolean> {
    return this.sql.atomic(async () => {
      await this.sql.run("DELETE FROM route_queue WHERE route_uid = ?", uid);
      return (await this.sql.run("DELETE FROM routes WHERE uid = ?", uid)) > 0;
    });
  }

  async enqueue(entries: NewRouteQueueEntry[], owner?: string): Promise<RouteQueueEntry[]> {
    if (entries.length === 0) return [];
    // One statement: the entries' sequence numbers come back in the order given.
    const rows = await this.sql.all<{ seq: number }>(
      `INSERT INTO route_queue (route_uid, project_uid, event_uid, attempt, due, source, owner)
       SELECT route_uid, project_uid, event_uid, attempt, due, source, ?::text
       FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::bigint[], ?::text[]) WITH ORDINALITY
         AS e(route_uid, project_uid, event_uid, attempt, due, source, n)
       ORDER BY n RETURNING seq`,
      owner ?? null,
      entries.map((e) => e.routeUid),
      entries.map((e) => e.projectUid),
      entries.map((e) => e.eventUid),
      entries.map((e) => e.attempt),
      entries.map((e) => e.dueMs),
      entries.map((e) => e.source),
    );
    const seqs = rows.map((r) => r.seq).sort((a, b) => a - b);
    return entries.map((e, i) => ({ ...e, seq: seqs[i]! }));
  }

  async pendingDeliveries(): Promise<RouteQueueEntry[]> {
    return (await this.sql.all<QueueRow>("SELECT * FROM route_queue ORDER BY seq")).map(entry);
  }

  async claimDeliveries(owner: string, live: readonly string[]): Promise<RouteQueueEntry[]> {
    // Rows another process is claiming right now are passed over, not waited for.
    const rows = await this.sql.all<QueueRow>(
      `UPDATE route_queue SET owner = ? WHERE seq IN (
         SELECT seq FROM route_queue WHERE owner IS NULL OR NOT (owner = ANY (?::text[]))
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      owner,
      [...live],
    );
    return rows.map(entry).sort((a, b) => a.seq - b.seq);
  }

  async completeAttempts(completions: readonly AttemptCompletion[]): Promise<void> {
    if (completions.length === 0) return;
    await this.sql.atomic(async () => {
      const written = new Set<string>();
      let newest = -Infinity;
      for (const { seq, log: entryLog, next } of completions) {
        const changed = next
          ? await this.sql.run(
              "UPDATE route_queue SET attempt = ?, due = ?, source = ?, begun = 0 WHERE seq = ?",
              next.attempt,
              next.dueMs,
              next.source,
              seq,
            )
          : await this.sql.run("DELETE FROM route_queue WHERE seq = ?", seq);
        if (changed > 0 && entryLog) {
          await this.#insertLog(entryLog);
          written.add(entryLog.routeUid);
          newest = Math.max(newest, entryLog.dateMs);
        }
      }
      if (written.size > 0) await this.#prune(written, newest);
    });
  }

  async beginAttempt(seq: number): Promise<void> {
    await this.sql.run("UPDATE route_queue SET begun = begun + 1 WHERE seq = ?", seq);
  }

  async abandonAttempt(seq: number): Promise<void> {
    await this.sql.run("UPDATE route_queue SET begun = greatest(begun - 1, 0) WHERE seq = ?", seq);
  }

  async addLog(entryLog: RouteLogRecord): Promise<void> {
    await this.sql.atomic(async () => {
      await this.#insertLog(entryLog);
      await this.#prune([entryLog.routeUid], entryLog.dateMs);
    });
  }

  async #insertLog(l: RouteLogRecord): Promise<void> {
    await this.sql.run(
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
    if (filter.deviceUids?.length) add("device_uid = ANY(?)", filter.deviceUids);
    if (filter.files?.length) add("file = ANY(?)", filter.files);
    if (filter.systemFilesOnly) add("substr(file, 1, 1) = '_'");
    if (filter.startSec !== undefined) add("date >= ?", filter.startSec * 1000);
    if (filter.endSec !== undefined) add("date < ?", (filter.endSec + 1) * 1000);
    const statuses = filter.routingStatus ?? [];
    if (statuses.length === 1) add("attn = ?", int(statuses[0] === "failure"));
    if (filter.responseStatus?.length) add("status = ANY(?)", filter.responseStatus);
    const dir = filter.sortOrder === "asc" ? "ASC" : "DESC";
    const order =
      filter.sortBy === "event" ? `event_uid ${dir}, date ${dir}, id ${dir}` : `date ${dir}, id ${dir}`;
    // mostRecentOnly picks each event's newest attempt before the other filters apply to it.
    const source = filter.mostRecentOnly
      ? `(SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY route_uid, event_uid ORDER BY date DESC, id DESC) AS newest
           FROM route_logs WHERE project_uid = ?) n WHERE newest = 1) l`
      : "route_logs";
    const rows = await this.sql.all<LogRow>(
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
    const t = "div(date, 1000)";
    const routes = query.routeUids.length ? "AND route_uid = ANY(?)" : "";
    const key = query.byProject ? "''" : "route_uid";
    const rows = await this.sql.all<{
      route_uid: string;
      period: number;
      ok: number;
      failed: number;
      latency: number | null;
    }>(
      `SELECT ${key} AS route_uid, ${periodStart(query.period, t)} AS period,
         count(*) FILTER (WHERE attn = 0) AS ok, count(*) FILTER (WHERE attn = 1) AS failed,
         avg(CASE WHEN duration > 0 THEN duration END) AS latency
       FROM route_logs
       WHERE project_uid = ? AND date >= ? AND date < ? ${routes}
       GROUP BY 1, 2 ORDER BY 2, 1`,
      projectUid,
      query.fromSec * 1000,
      query.toSec * 1000,
      ...(query.routeUids.length ? [query.routeUids] : []),
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
