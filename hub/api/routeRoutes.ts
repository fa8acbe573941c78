import type { JsonObject } from "../../core/json.js";
import { roleAtLeast } from "../auth/Principal.js";
import * as errors from "../errors.js";
import { maskedSettings } from "../routing/routeSettings.js";
import type { RouteLogFilter, RouteLogRecord, RouteRecord } from "../store/RouteStore.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import type { QueryReader } from "./QueryReader.js";
import { checkedRouteBody, checkOlderSettings, ROUTE_BODY } from "./routeBody.js";
import { isoTime } from "./views.js";

/** Route logs per page: the definition's pageSizeParam (default 50, at most 10,000). */
const DEFAULT_LOG_PAGE = 50;
const MAX_LOG_PAGE = 10_000;

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
 * Without `withText` the endpoint's answer (`text`) is left out: viewers see status and timing,
 * not what an endpoint answered (it may be anything the endpoint holds).
 */
export function routeLogView(l: RouteLogRecord, withText = true): JsonObject {
  const routeUid = `${l.projectUid}/${l.routeUid}`;
  return {
    date: new Date(l.dateMs).toISOString(),
    duration: l.durationMs,
    route_uid: routeUid,
    event_uid: l.eventUid,
    attn: l.attn,
    status: l.status,
    ...(withText ? { text: l.text } : {}),
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
  if (!route) throw errors.hubRouteNotFound(uid);
  return route;
}

/** Whether the caller may read the endpoints' answers in route logs: developers and owners. */
const seesText = (ctx: ProjectContext): boolean => roleAtLeast(ctx.role, "developer");

function logPage(q: QueryReader): { offset: number; limit: number } {
  const pageSize = q.int("pageSize", { min: 1, max: MAX_LOG_PAGE }) ?? DEFAULT_LOG_PAGE;
  const pageNum = q.int("pageNum", { min: 1, max: 1_000_000_000 }) ?? 1;
  return { offset: (pageNum - 1) * pageSize, limit: pageSize };
}

function listOf<T extends string>(q: QueryReader, name: string, allowed?: readonly T[]): T[] {
  const values = q.list(name, { comma: true });
  if (allowed) {
    for (const v of values) {
      if (!(allowed as readonly string[]).includes(v)) throw errors.queryOneOf(name, allowed);
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
    throw errors.queryDateOrder();
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

/** Route CRUD and route logs by route and by event (docs/hub.md, Routes; their usage: usageRoutes). */
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
    async (ctx) => routeView(await routing.create(ctx.project.uid, checkedRouteBody(ctx.request.body))),
    { status: 201 },
  );

  router.project("GET", `${P}/routes/:routeUID`, "viewer", async (ctx) => routeView(await resolveRoute(ctx)));

  router.project("PUT", `${P}/routes/:routeUID`, "developer", async (ctx) => {
    const uid = routeUidOf(ctx);
    const body = ROUTE_BODY.read(ctx.request.body);
    // The older shape's settings object holds the fields of the stored route's schema.
    checkOlderSettings(body, (await resolveRoute(ctx)).schema);
    const route = await routing.update(ctx.project.uid, uid, body);
    if (!route) throw errors.hubRouteNotFound(uid);
    return routeView(route);
  });

  router.project("DELETE", `${P}/routes/:routeUID`, "developer", async (ctx) => {
    const uid = routeUidOf(ctx);
    if (!(await routing.delete(ctx.project.uid, uid))) throw errors.hubRouteNotFound(uid);
    ctx.reply.code(204);
    return undefined;
  });

  router.project("GET", `${P}/routes/:routeUID/route-logs`, "viewer", async (ctx) => {
    const route = await resolveRoute(ctx);
    const filter = { ...logFilter(ctx.query), routeUid: route.uid };
    const logs = await store.routes.listLogs(ctx.project.uid, filter, logPage(ctx.query));
    return logs.map((l) => routeLogView(l, seesText(ctx)));
  });

  router.project("GET", `${P}/events/:eventUID/route-logs`, "viewer", async (ctx) => {
    const uid = ctx.params.eventUID!;
    if (!(await store.telemetry.getEvent(ctx.project.uid, uid))) throw errors.eventNotFound(uid);
    const logs = await store.routes.listLogs(
      ctx.project.uid,
      { eventUid: uid, sortBy: "date", sortOrder: "desc" },
      { offset: 0, limit: 100_000 },
    );
    return logs.map((l) => routeLogView(l, seesText(ctx)));
  });
}
