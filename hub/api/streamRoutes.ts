import type { ServerResponse } from "node:http";
import type { Principal } from "../auth/Principal.js";
import * as errors from "../errors.js";
import { FEED_KINDS, type FeedItem, type FeedKind } from "../feed/HubFeed.js";
import type { HubServices } from "../HubServices.js";
import type { AccountContext, HubRouter } from "./HubRouter.js";

/** The path of the hub's live feed (server-sent events). */
export const STREAM_PATH = "/console/api/stream";
/** A comment line this often keeps proxies and browsers from timing the stream out (real time). */
const HEARTBEAT_MS = 15_000;
/** How soon a client whose stream dropped connects again (the stream's `retry:`). */
const RECONNECT_MS = 1000;
/** The notefile a session item stands for when a notefile filter is given. */
const SESSION_FILE = "_session.qo";

/** What a stream's caller asked to see. */
export interface StreamFilter {
  project?: string;
  devices?: Set<string>;
  files?: Set<string>;
  kinds: Set<FeedKind>;
}

/** True when the item is one the filter lets through (the caller's projects checked apart). */
export function matches(item: FeedItem, filter: StreamFilter): boolean {
  if (!filter.kinds.has(item.kind)) return false;
  if (filter.project !== undefined && item.projectUid !== filter.project) return false;
  if (filter.devices && !filter.devices.has(item.deviceUid)) return false;
  if (!filter.files) return true;
  const file = item.kind === "session" ? SESSION_FILE : item.kind === "dfu" ? undefined : item.file;
  return file !== undefined && filter.files.has(file);
}

function readFilter(ctx: AccountContext, project: string | undefined): StreamFilter {
  const list = (name: string) => {
    const values = ctx.query.list(name, { comma: true }).filter((v) => v !== "");
    return values.length > 0 ? new Set(values) : undefined;
  };
  const kinds = list("kinds") ?? new Set(FEED_KINDS);
  for (const kind of kinds) {
    if (!(FEED_KINDS as readonly string[]).includes(kind)) {
      throw errors.queryOneOf("kinds", FEED_KINDS);
    }
  }
  const devices = list("device");
  const files = list("file");
  return {
    ...(project !== undefined ? { project } : {}),
    ...(devices ? { devices } : {}),
    ...(files ? { files } : {}),
    kinds: kinds as Set<FeedKind>,
  };
}

/** The projects a caller may read now. */
async function readableProjects(services: HubServices, principal: Principal): Promise<Set<string>> {
  if (principal.kind === "oauth") return new Set([principal.projectUid]);
  const mine = await services.store.projects.listProjectsOf(principal.userUid);
  return new Set(mine.map((m) => m.project.uid));
}

/**
 * `GET /console/api/stream`: the hub's live feed as server-sent events (`event: <kind>`, `data:` the
 * item's JSON), for the console and `cardsim tail`. Filters: `project`, `device`, `file`, `kinds`
 * (each comma-separated or repeated). Only items of the caller's projects are sent; every
 * heartbeat the caller is checked again, and a stream whose token stopped working ends.
 */
export function registerStreamRoutes(router: HubRouter): void {
  const { services } = router;
  const open = new Set<ServerResponse>();
  router.app.addHook("onClose", () => {
    for (const response of open) response.end();
  });

  router.account("GET", STREAM_PATH, async (ctx) => {
    const asked = ctx.query.string("project");
    const project = asked === undefined ? undefined : (await router.resolveProject(asked)).uid;
    const filter = readFilter(ctx, project);
    let readable = await readableProjects(services, ctx.principal);
    if (project !== undefined && !readable.has(project)) throw errors.projectNotFound(asked!);
    ctx.reply.hijack();
    const response = ctx.reply.raw;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "close",
      "x-accel-buffering": "no",
    });
    const send = (kind: string, data: unknown) =>
      response.write(`event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`);
    // A browser whose stream drops (the hub restarted) tries again after a second, not its default 3.
    response.write(`retry: ${RECONNECT_MS}\n\n`);
    send("hello", { kinds: [...filter.kinds], at: services.clock.now() });
    open.add(response);
    const unsubscribe = services.feed.subscribe((item) => {
      if (readable.has(item.projectUid) && matches(item, filter)) send(item.kind, item);
    });
    const heartbeat = setInterval(() => {
      response.write(": heartbeat\n\n");
      services.auth
        .authenticate(ctx.request.headers)
        .then(async (principal) => void (readable = await readableProjects(services, principal)))
        .catch(() => response.end());
    }, HEARTBEAT_MS);
    heartbeat.unref();
    response.on("close", () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(response);
    });
  });
}
