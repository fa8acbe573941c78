import { isJsonObject, type JsonObject } from "../../core/json.js";
import * as errors from "../errors.js";
import { HttpError } from "../HttpError.js";
import type { EventFilter, EventRecord } from "../store/records.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { resolveDevice } from "./resolve.js";
import { eventView, isoTime } from "./views.js";

/** The notefile of the module's tracking notes. */
export const TRACK_FILE = "_track.qo";
/** Journeys GetDeviceJourneys lists at most (the most recent). */
export const MAX_JOURNEYS = 100;
/** Events read from the store per query while journeys are gathered. */
const BATCH = 1000;

/**
 * The journey a `_track.qo` event belongs to: its body's `journey` (a Unix time in seconds, when
 * the journey began, as the module writes it), else a top-level `journey`; undefined for an event
 * outside any journey (a module that does not number them).
 */
export function journeyOf(event: EventRecord): number | undefined {
  const body = event.data["body"];
  const value = isJsonObject(body) && body["journey"] !== undefined ? body["journey"] : event.data["journey"];
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** Every `_track.qo` event of the device in the filter's time range, oldest first (by capture time). */
async function trackEvents(
  ctx: ProjectContext,
  deviceUid: string,
  range: EventFilter,
): Promise<EventRecord[]> {
  const filter: EventFilter = { ...range, deviceUids: [deviceUid], files: [TRACK_FILE] };
  const out: EventRecord[] = [];
  for (let offset = 0; ; offset += BATCH) {
    const page = await ctx.services.store.telemetry.listEvents(
      ctx.project.uid,
      filter,
      { by: "captured", descending: false },
      { offset, limit: BATCH },
    );
    out.push(...page.items);
    if (!page.hasMore) return out;
  }
}

interface Journey {
  id: number;
  events: EventRecord[];
}

/** The events grouped by journey, most recent journey (latest start) first. */
function journeys(events: readonly EventRecord[]): Journey[] {
  const byId = new Map<number, EventRecord[]>();
  for (const event of events) {
    const id = journeyOf(event);
    if (id === undefined) continue;
    const list = byId.get(id) ?? [];
    list.push(event);
    byId.set(id, list);
  }
  return [...byId.entries()].map(([id, list]) => ({ id, events: list })).sort((a, b) => b.id - a.id);
}

function span(events: readonly EventRecord[]): { start_date: string; end_date: string } {
  const times = events.map((e) => e.whenSec);
  return {
    start_date: isoTime(Math.min(...times) * 1000),
    end_date: isoTime(Math.max(...times) * 1000),
  };
}

/**
 * Journeys of a device: its `_track.qo` events grouped by the `journey` number the module puts
 * in each (see `journeyOf`; `jcount` numbers the points of one journey and orders events that
 * share a capture second).
 */
export function registerJourneyRoutes(router: HubRouter): void {
  const D = "/v1/projects/:projectUID/devices/:deviceUID";

  router.project("GET", `${D}/journeys`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const { startSec, endSec } = ctx.query.dateRange();
    const range: EventFilter = {
      ...(startSec === undefined ? {} : { fromSec: startSec }),
      ...(endSec === undefined ? {} : { toSec: endSec + 1 }),
    };
    const all = journeys(await trackEvents(ctx, device.uid, range));
    return {
      journeys: all.slice(0, MAX_JOURNEYS).map((j): JsonObject => ({
        journey_id: j.id,
        total_events: j.events.length,
        ...span(j.events),
      })),
      has_more: all.length > MAX_JOURNEYS,
    };
  });

  router.project("GET", `${D}/journeys/:journeyID`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const raw = ctx.params.journeyID!;
    if (!/^\d{1,15}$/.test(raw))
      throw errors.fieldInvalid("journeyID", "must be a journey's number (a Unix time)");
    const id = Number(raw);
    const page = ctx.query.page();
    const events = (await trackEvents(ctx, device.uid, {})).filter((e) => journeyOf(e) === id);
    if (events.length === 0) {
      throw new HttpError(404, `The requested resource could not be found: journey ${id} of ${device.uid}`);
    }
    events.sort((a, b) => a.whenSec - b.whenSec || jcount(a) - jcount(b));
    return {
      journey_id: id,
      ...span(events),
      journey: {
        events: events.slice(page.offset, page.offset + page.limit).map(eventView),
        has_more: events.length > page.offset + page.limit,
      },
    };
  });
}

/** The point's number within its journey (`jcount`), 0 when the event carries none. */
function jcount(event: EventRecord): number {
  const body = event.data["body"];
  const value = isJsonObject(body) ? body["jcount"] : undefined;
  return typeof value === "number" ? value : 0;
}
