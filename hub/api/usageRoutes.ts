import * as errors from "../errors.js";
import type { UsageAggregate, UsagePeriod, UsageQuery } from "../store/records.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import type { QueryReader } from "./QueryReader.js";
import { dataUsage, eventsUsage, sessionsUsage } from "./usageReports.js";
import { isoTime } from "./views.js";

const PERIODS = ["day", "week", "month"] as const;
const AGGREGATES = ["device", "fleet", "project"] as const;
/** The definition's `usageLimitQueryParam`: data points per answer. */
const DEFAULT_LIMIT = 200_000;
const MAX_LIMIT = 400_000;

function period(q: QueryReader): UsagePeriod {
  const value = q.oneOf("period", PERIODS);
  if (value === undefined) throw errors.queryRequired("period");
  return value;
}

/**
 * `startDate` and `endDate`, inclusive to the second, as [fromSec, toSec): no start counts from
 * the beginning; no end, or 0, is now (the definitions' rule for events and sessions usage).
 */
function range(ctx: ProjectContext): { fromSec: number; toSec: number } {
  const q = ctx.query;
  const start = q.date("startDate");
  const end = q.date("endDate");
  if (start !== undefined && start < 0) throw errors.queryDateBeforeEpoch("startDate");
  if (end !== undefined && end < 0) throw errors.queryDateBeforeEpoch("endDate");
  const endSec = end === undefined || end === 0 ? Math.floor(ctx.now / 1000) : end;
  if (start !== undefined && endSec < start) throw errors.queryDateOrder();
  return { fromSec: start ?? 0, toSec: endSec + 1 };
}

const limit = (q: QueryReader): number => q.int("limit", { min: 1, max: MAX_LIMIT }) ?? DEFAULT_LIMIT;

/** What every usage query of devices shares: period, range, devices, fleets, aggregate. */
function usageQuery(ctx: ProjectContext, aggregate: UsageAggregate): UsageQuery {
  const q = ctx.query;
  return {
    period: period(q),
    aggregate,
    ...range(ctx),
    deviceUids: q.list("deviceUID"),
    fleetUids: q.list("fleetUID"),
  };
}

/**
 * Events usage's `aggregate`: one of device, fleet, project (default device), which the spec lets
 * be repeated with `datafile` (or `notefile`) to ask for per-notefile counts.
 */
function eventAggregate(q: QueryReader): { aggregate: UsageAggregate; notefiles: boolean } {
  let aggregate: UsageAggregate | undefined;
  let notefiles = false;
  for (const value of q.list("aggregate")) {
    if (value === "datafile" || value === "notefile") notefiles = true;
    else if ((AGGREGATES as readonly string[]).includes(value) && aggregate === undefined)
      aggregate = value as UsageAggregate;
    else if ((AGGREGATES as readonly string[]).includes(value))
      throw errors.queryInvalid("aggregate", "may name only one of device, fleet, project");
    else throw errors.queryOneOf("aggregate", [...AGGREGATES, "datafile"]);
  }
  return { aggregate: aggregate ?? "device", notefiles };
}

/** The Usage API, counted from the project's sessions, events and health log. */
export function registerUsageRoutes(router: HubRouter): void {
  const U = "/v1/projects/:projectUID/usage";
  const telemetry = router.services.store.telemetry;

  router.project("GET", `${U}/data`, "viewer", async (ctx) => {
    const aggregate = ctx.query.oneOf("aggregate", AGGREGATES) ?? "device";
    const query = usageQuery(ctx, aggregate);
    const max = limit(ctx.query);
    return dataUsage(await telemetry.sessionUsage(ctx.project.uid, query), aggregate, max);
  });

  router.project("GET", `${U}/sessions`, "viewer", async (ctx) => {
    const aggregate = ctx.query.oneOf("aggregate", AGGREGATES) ?? "device";
    const query = usageQuery(ctx, aggregate);
    const max = limit(ctx.query);
    // Everything is counted from the records themselves: there are no summary tables to prefer.
    ctx.query.bool("skipRecentData", false);
    return sessionsUsage(await telemetry.sessionUsage(ctx.project.uid, query), aggregate, max);
  });

  router.project("GET", `${U}/events`, "viewer", async (ctx) => {
    const q = ctx.query;
    const { aggregate, notefiles } = eventAggregate(q);
    const query: UsageQuery = {
      ...usageQuery(ctx, aggregate),
      files: [...q.list("notefile"), ...q.list("datafile")],
    };
    const max = limit(q);
    q.bool("skipRecentData", false);
    const includeNotefiles =
      notefiles || q.bool("includeNotefiles", false) || q.bool("includeDatafiles", false);
    const [rows, health] = [
      await telemetry.eventUsage(ctx.project.uid, query),
      await telemetry.healthUsage(ctx.project.uid, query),
    ];
    return eventsUsage(rows, health, {
      period: query.period,
      aggregate,
      limit: max,
      notefiles: includeNotefiles,
    });
  });

  // Route logs counted per period, per route or for the whole project.
  router.project("GET", `${U}/route-logs`, "viewer", async (ctx) => {
    const q = ctx.query;
    const per = period(q);
    const aggregate = q.oneOf("aggregate", ["route", "project"] as const) ?? "route";
    const { fromSec, toSec } = range(ctx);
    const max = limit(q);
    q.bool("skipRecentData", false);
    const rows = await router.services.store.routes.logUsage(ctx.project.uid, {
      period: per,
      fromSec,
      toSec,
      routeUids: q.list("routeUID"),
      byProject: aggregate === "project",
    });
    const points = rows.slice(0, max).map((r) => ({
      period: isoTime(r.periodSec * 1000),
      ...(aggregate === "route" ? { route: r.routeUid } : {}),
      successful_routes: r.successful,
      failed_routes: r.failed,
      total_routes: r.successful + r.failed,
      avg_latency_ms: r.avgLatencyMs,
    }));
    return { route_logs: points, truncated: rows.length > max };
  });
}
