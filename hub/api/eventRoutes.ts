import type { JsonObject } from "../../core/json.js";
import { EVENT_SORT_KEYS, type EventFilter, type EventRecord } from "../store/records.js";
import { defaultCsvFields, eventsCsv, parseSelectFields, selectMembers } from "./eventFields.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { MAX_DEFINED_PAGE_SIZE, type QueryReader } from "./QueryReader.js";
import { resolveFleet } from "./resolve.js";
import { eventView } from "./views.js";

/** The most events one cursor page returns (the definition gives no maximum). */
export const MAX_CURSOR_LIMIT = 10_000;
const DEFAULT_CURSOR_LIMIT = 50;

/** `files`: comma-separated notefile names (the definition's example has blanks after the commas). */
const files = (q: QueryReader): string[] => q.list("files", { comma: true });

/** `startDate`/`endDate` (inclusive, to the second) as the store's [fromSec, toSec). */
function dates(q: QueryReader): Pick<EventFilter, "fromSec" | "toSec"> {
  const { startSec, endSec } = q.dateRange();
  return {
    ...(startSec === undefined ? {} : { fromSec: startSec }),
    ...(endSec === undefined ? {} : { toSec: endSec + 1 }),
  };
}

const descending = (q: QueryReader): boolean => q.oneOf("sortOrder", ["asc", "desc"] as const) === "desc";

/** The filters of Get Project Events and Get Fleet Events (a fleet's events: `fleetUid`). */
function listFilter(q: QueryReader, fleetUid: string | null): EventFilter {
  const dateType = q.oneOf("dateType", ["captured", "uploaded"] as const) ?? "captured";
  return {
    // `deviceUIDs` is the definition's deprecated name for the same filter.
    deviceUids: [...q.list("deviceUID"), ...q.list("deviceUIDs")],
    serialNumbers: q.list("serialNumber"),
    fleetUids: fleetUid === null ? q.list("fleetUID") : [fleetUid],
    sessionUids: q.list("sessionUID"),
    eventUids: q.list("eventUID"),
    files: files(q),
    systemFilesOnly: q.bool("systemFilesOnly", false),
    ...dates(q),
    dateType: dateType === "uploaded" ? "received" : "captured",
  };
}

/** The filters of the cursor variants: the fleet one has dates (on the captured time), the project one a fleet. */
function cursorFilter(q: QueryReader, fleetUid: string | null): EventFilter {
  return {
    deviceUids: q.list("deviceUID"),
    fleetUids: fleetUid === null ? q.list("fleetUID") : [fleetUid],
    files: files(q),
    systemFilesOnly: q.bool("systemFilesOnly", false),
    ...(fleetUid === null ? {} : dates(q)),
  };
}

/**
 * Get Project Events / Get Fleet Events: a page of events, as JSON (`{events, has_more,
 * through}`) or CSV, `X-Has-More` either way.
 */
async function listEvents(ctx: ProjectContext, fleetUid: string | null): Promise<unknown> {
  const q = ctx.query;
  const page = q.page(MAX_DEFINED_PAGE_SIZE);
  const filter = listFilter(q, fleetUid);
  const order = { by: q.oneOf("sortBy", EVENT_SORT_KEYS) ?? "captured", descending: descending(q) };
  const csv = (q.oneOf("format", ["json", "csv"] as const) ?? "json") === "csv";
  const selectFields = q.string("selectFields");
  const fields = selectFields === undefined ? undefined : parseSelectFields(selectFields);
  const result = await ctx.services.store.telemetry.listEvents(ctx.project.uid, filter, order, page);
  ctx.reply.header("X-Has-More", String(result.hasMore));
  const events = result.items.map(eventView);
  if (csv) {
    ctx.reply.type("text/csv; charset=utf-8");
    return eventsCsv(events, fields ?? defaultCsvFields());
  }
  const out: JsonObject = {
    events: fields ? events.map((e) => selectMembers(e, fields)) : events,
    has_more: result.hasMore,
  };
  const last: EventRecord | undefined = result.items[result.items.length - 1];
  if (last) out.through = last.uid;
  return out;
}

/** Get Events by Cursor (project and fleet): `{events, next_cursor, has_more}`. */
async function eventsByCursor(ctx: ProjectContext, fleetUid: string | null): Promise<unknown> {
  const q = ctx.query;
  const limit = q.int("limit", { min: 1, max: MAX_CURSOR_LIMIT }) ?? DEFAULT_CURSOR_LIMIT;
  const filter = cursorFilter(q, fleetUid);
  const page = await ctx.services.store.telemetry.eventsFromCursor(ctx.project.uid, filter, {
    cursor: q.string("cursor") ?? null,
    descending: descending(q),
    limit,
  });
  return { events: page.items.map(eventView), next_cursor: page.next ?? "", has_more: page.next !== null };
}

/** The Event API: the project's events and a fleet's, paged or by cursor, and an event's route logs. */
export function registerEventRoutes(router: HubRouter): void {
  const P = "/v1/projects/:projectUID";

  router.project("GET", `${P}/events`, "viewer", (ctx) => listEvents(ctx, null));
  router.project("GET", `${P}/events-cursor`, "viewer", (ctx) => eventsByCursor(ctx, null));

  router.project("GET", `${P}/fleets/:fleetUID/events`, "viewer", async (ctx) =>
    listEvents(ctx, (await resolveFleet(ctx, ctx.params.fleetUID!)).uid),
  );
  router.project("GET", `${P}/fleets/:fleetUID/events-cursor`, "viewer", async (ctx) =>
    eventsByCursor(ctx, (await resolveFleet(ctx, ctx.params.fleetUID!)).uid),
  );
}
