import type { JsonObject } from "../../core/json.js";
import { HttpError } from "../HttpError.js";
import { maskedSettings } from "../routing/routeSettings.js";
import type { RouteLogFilter, RouteLogRecord, RouteRecord } from "../store/RouteStore.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import type { QueryReader } from "./QueryReader.js";
import { isoTime } from "./views.js";

/** Route logs per page: the definition's pageSizeParam (default 50, at most 10,000). */
const DEFAULT_LOG_PAGE = 50;
const MAX_LOG_PAGE = 10_000;
/** Usage data points per answer (the Usage API's `limit`). */
const DEFAULT_USAGE_LIMIT = 200_000;
const MAX_USAGE_LIMIT = 400_000;

// Error texts of these routes (the wording of hub/errors.ts: "The requested resource could not be found").
const notFound = (what: string, id: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: ${what} ${id.slice(0, 80)}`);
const bad = (text: string): HttpError => new HttpError(400, text);

/** A route as GetRoutes lists it (NotehubRouteSummary). */
export function routeSummaryView(r: RouteRecord): JsonObject {
  return { uid: r.uid, label: r.label, type: r.type, modified: isoTime(r.modified), disabled: r.disabled };
}

/** A route with its settings object, named after its schema (NotehubRoute); secrets masked. */
export function routeView(r: RouteRecord): JsonObject {
  return {
    ...routeSummaryView(r),
    ...(r.notes !== null ? { notes: r.notes } : {}),
    [r.schema]: maskedSettings(r.settings),
  };
}

/**
 * A route log (RouteLog), the route prefixed with its project as the spec says; the older
 * definition's `routeUID`/`eventUID` beside the current names, and the attempt's `source`.
 */
export function routeLogView(l: RouteLogRecord): JsonObject {
  const routeUid = `${l.projectUid}/${l.routeUid}`;
  return {
    date: new Date(l.dateMs).toISOString(),
    duration: l.durationMs,
    route_uid: routeUid,
    event_uid: l.eventUid,
    attn: l.attn,
    status: l.status,
    text: l.text,
    url: l.url,
    source: l.source,
    routeUID: routeUid,
    eventUID: l.eventUid,
  };
}

/** The route UID of a path segment: `route:<hex>`, or the logs' `<ProjectUID>/route:<hex>`. */
function routeUidOf(ctx: ProjectContext): string {
  const given = ctx.params.routeUID ?? "";
  const prefix = `${ctx.project.uid}/`;
  return given.startsWith(prefix) ? given.slice(prefix.length) : given;
}

async function resolveRoute(ctx: ProjectContext): Promise<RouteRecord> {
  const uid = routeUidOf(ctx);
  const route = await ctx.services.routing.get(ctx.project.uid, uid);
  if (!route) throw notFound("route", uid);
  return route;
}

function logPage(q: QueryReader): { offset: number; limit: number } {
  const pageSize = q.int("pageSize", { min: 1, max: MAX_LOG_PAGE }) ?? DEFAULT_LOG_PAGE;
  const pageNum = q.int("pageNum", { min: 1, max: 1_000_000_000 }) ?? 1;
  return { offset: (pageNum - 1) * pageSize, limit: pageSize };
}

function listOf<T extends string>(q: QueryReader, name: string, allowed?: readonly T[]): T[] {
  const values = q.list(name, { comma: true });
  if (allowed) {
    for (const v of values) {
      if (!(allowed as readonly string[]).includes(v))
        throw bad(`query argument ${name} must be one of ${allowed.join(", ")}`);
    }
  }
  return values as T[];
}

/** GetRouteLogsByRoute's filters and order. */
function logFilter(q: QueryReader): RouteLogFilter {
  // The older definition's sortBy names event fields; its time orders are the log's date.
  const sortBy = q.oneOf("sortBy", ["date", "event", "captured", "modified"] as const) ?? "date";
  const startSec = q.date("startDate");
  const endSec = q.date("endDate");
  if (startSec !== undefined && endSec !== undefined && endSec < startSec) {
    throw bad("query argument endDate must not be before startDate");
  }
  return {
    deviceUids: q.list("deviceUID"),
    files: q.list("files", { comma: true }),
    systemFilesOnly: q.bool("systemFilesOnly", false),
    mostRecentOnly: q.bool("mostRecentOnly", false),
    routingStatus: listOf(q, "routingStatus", ["success", "failure"] as const),
    responseStatus: listOf(q, "responseStatus"),
    ...(startSec !== undefined ? { startSec } : {}),
    ...(endSec !== undefined ? { endSec } : {}),
    sortBy: sortBy === "event" ? "event" : "date",
    sortOrder: q.oneOf("sortOrder", ["asc", "desc"] as const) ?? "desc",
  };
}

/** Route CRUD, route logs by route and by event, and the route-log usage (docs/hub.md, Routes). */
export function registerRouteRoutes(router: HubRouter): void {
  const P = "/v1/projects/:projectUID";
  const { routing, store } = router.services;

  router.project("GET", `${P}/routes`, "viewer", async (ctx) => {
    return (await routing.list(ctx.project.uid)).map(routeSummaryView);
  });

  router.project(
    "POST",
    `${P}/routes`,
    "developer",
    async (ctx) => routeView(await routing.create(ctx.project.uid, ctx.body().fields)),
    { status: 201 },
  );

  router.project("GET", `${P}/routes/:routeUID`, "viewer", async (ctx) => routeView(await resolveRoute(ctx)));

  router.project("PUT", `${P}/routes/:routeUID`, "developer", async (ctx) => {
    const uid = routeUidOf(ctx);
    const body = ctx.body().fields;
    const route = await routing.update(ctx.project.uid, uid, body);
    if (!route) throw notFound("route", uid);
    return routeView(route);
  });

  router.project("DELETE", `${P}/routes/:routeUID`, "developer", async (ctx) => {
    const uid = routeUidOf(ctx);
    if (!(await routing.delete(ctx.project.uid, uid))) throw notFound("route", uid);
    ctx.reply.code(204);
    return undefined;
  });

  router.project("GET", `${P}/routes/:routeUID/route-logs`, "viewer", async (ctx) => {
    const route = await resolveRoute(ctx);
    const filter = { ...logFilter(ctx.query), routeUid: route.uid };
    const logs = await store.routes.listLogs(ctx.project.uid, filter, logPage(ctx.query));
    return logs.map(routeLogView);
  });

  router.project("GET", `${P}/events/:eventUID/route-logs`, "viewer", async (ctx) => {
    const uid = ctx.params.eventUID!;
    if (!(await store.routes.getEvent(ctx.project.uid, uid))) throw notFound("event", uid);
    const logs = await store.routes.listLogs(
      ctx.project.uid,
      { eventUid: uid, sortBy: "date", sortOrder: "desc" },
      { offset: 0, limit: 100_000 },
    );
    return logs.map(routeLogView);
  });

  router.project("GET", `${P}/usage/route-logs`, "viewer", async (ctx) => {
    const q = ctx.query;
    const period = q.oneOf("period", ["day", "week", "month"] as const);
    if (period === undefined) throw bad("query argument period is required (day, week or month)");
    const aggregate = q.oneOf("aggregate", ["route", "project"] as const) ?? "route";
    const start = q.date("startDate");
    const end = q.date("endDate");
    if (start !== undefined && start < 0) throw bad("query argument startDate must not be before 1970");
    if (end !== undefined && end < 0) throw bad("query argument endDate must not be before 1970");
    // endDate 0 or absent is now (the definition's rule).
    const endSec = end === undefined || end === 0 ? Math.floor(ctx.now / 1000) : end;
    if (start !== undefined && endSec < start)
      throw bad("query argument endDate must not be before startDate");
    const limit = q.int("limit", { min: 1, max: MAX_USAGE_LIMIT }) ?? DEFAULT_USAGE_LIMIT;
    // Everything is counted from the logs themselves: there are no summary tables to prefer.
    q.bool("skipRecentData", false);
    const rows = await store.routes.logUsage(ctx.project.uid, {
      period,
      fromSec: start ?? 0,
      toSec: endSec + 1,
      routeUids: q.list("routeUID"),
      byProject: aggregate === "project",
    });
    const points = rows.slice(0, limit).map((r) => ({
      period: isoTime(r.periodSec * 1000),
      ...(aggregate === "route" ? { route: r.routeUid } : {}),
      successful_routes: r.successful,
      failed_routes: r.failed,
      total_routes: r.successful + r.failed,
      avg_latency_ms: r.avgLatencyMs,
    }));
    return { route_logs: points, truncated: rows.length > limit };
  });
}
