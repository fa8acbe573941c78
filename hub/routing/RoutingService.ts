import { Alarm } from "../../core/Alarm.js";
import type { Clock } from "../../core/Clock.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import type { EventService } from "../events/EventService.js";
import type { HubIds } from "../HubIds.js";
import { ServiceError } from "../ServiceError.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";
import type {
  AttemptCompletion,
  RouteLogRecord,
  RouteLogRetention,
  RouteQueueEntry,
  RouteRecord,
  RouteSource,
} from "../store/RouteStore.js";
import { DueQueue } from "./DueQueue.js";
import { headerMap, HttpSender, type OutboundResult } from "./HttpSender.js";
import { brokerUrl, MqttPublisher } from "./MqttPublisher.js";
import { routeFleets, routeTakesDevice, routeTakesFile } from "./routeFilter.js";
import { DELIVERED_TYPES, routeFromBody, routeWithChanges } from "./routeSettings.js";
import { JsonataCache, JsonataError, type JsonataOptions } from "../events/JsonataCache.js";
import { transformEvent } from "./transforms.js";
import { RouteTargets, type RouteTargetOptions } from "./RouteTargets.js";

/**
 * After a failed attempt (no connection, timeout, invalid response, 5xx) the event is tried again
 * 1, 3 and 6 minutes later: "up to three more times over about six minutes", as the hosted hub
 * does. Each retry is its own attempt with its own log.
 */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000, 180_000];
/** A route's `timeout` when unset (0): the hosted hub's rule, no connection or no answer within 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Longest `timeout` honoured. */
export const MAX_TIMEOUT_MS = 600_000;
/** Response bytes kept in a route log's `text` (the rest is read and dropped). */
export const LOG_TEXT_BYTES = 8192;
/** A proxied web request's timeout when neither the route nor the caller gives one (web.* `seconds`). */
export const WEB_TIMEOUT_MS = 90_000;
/** Response bytes a proxied web request returns unless the caller asks for another limit. */
export const WEB_MAX_BYTES = 1024 * 1024;
/** Route logs kept unless told otherwise: the newest 1,000 of each route, none older than 30 days. */
export const DEFAULT_LOG_RETENTION: RouteLogRetention = { keepPerRoute: 1000, maxAgeMs: 30 * 86_400_000 };
/** Events read from the subscriber's queue per store transaction. */
const INTAKE_BATCH = 500;
/** Ended attempts written per store transaction at most (see #complete). */
const COMPLETION_BATCH = 64;

export interface RoutingOptions {
  /** Delays of the retries after a failed attempt (default RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
  /** Limits of the JSONata evaluator (transforms, proxy routes): workers, time, memory. */
  jsonata?: JsonataOptions;
  /** Which addresses routes may reach (policy, the hub's own listening addresses); default `any`. */
  targets?: RouteTargetOptions;
  /** Route logs kept (default DEFAULT_LOG_RETENTION; 0 in a field: no limit of that kind). */
  logRetention?: Partial<RouteLogRetention>;
}

/** A proxy route as a web request uses it. */
export interface ProxyTarget {
  routeUid: string;
  url: string;
  headers: Record<string, string>;
  /** The route's `timeout` in ms, when it sets one. */
  timeoutMs: number | undefined;
  /** `{format, jsonata, jsonata_in}`: `jsonata` reshapes a JSON request body, `jsonata_in` a JSON answer. */
  transform: JsonObject;
}

/** A module's `web.*` request, proxied through a route of its project. */
export interface WebRequest {
  projectUid: string;
  deviceUid: string;
  /** The proxy route's `alias` (web.* `route`). */
  alias: string;
  /** GET, PUT, POST, DELETE (default POST). */
  method?: string;
  /** Appended to the route's URL (web.* `name`; may carry a query). */
  name?: string;
  /** Content-Type of `body` (default application/json when there is a body). */
  contentType?: string;
  body?: Uint8Array | null;
  /** Extra request headers (a Range for ranged reads); they win over the route's. */
  headers?: Record<string, string>;
  /** The caller's timeout (web.* `seconds`); the shorter of it and the route's applies. */
  timeoutMs?: number;
  /** Response bytes to return (default WEB_MAX_BYTES); longer answers come back cut, `truncated` set. */
  maxBytes?: number;
  /** The event the request belongs to, if any (shown in the route log). */
  eventUid?: string;
}

export interface WebResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
  /** The URL requested. */
  url: string;
  routeUid: string;
}

export type WebRequestErrorCode =
  /** No enabled proxy route with that alias serves the device. */
  | "no-route"
  /** No complete answer within the timeout. */
  | "timeout"
  /** No connection, or an answer that is not HTTP. */
  | "unreachable"
  /** The route's JSONata failed on the request or the answer. */
  | "transform";

export class WebRequestError extends Error {
  override readonly name = "WebRequestError";

  constructor(
    readonly code: WebRequestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A queued delivery in memory, with the event when it is at hand (saves reading it back). */
interface Pending {
  entry: RouteQueueEntry;
  event?: EventRecord;
}

/** One route's deliveries: attempted one at a time, in order of due time, then queueing order. */
interface Lane {
  entries: DueQueue<Pending>;
  busy: boolean;
  /** Earliest start of the next attempt (throttle_ms after the last one started). */
  nextStartAt: number;
}

/** What one attempt came to. */
type Outcome =
  | {
      kind: "logged";
      attn: boolean;
      status: string;
      text: string;
      url: string;
      retry: boolean;
      /** With `retry`: once the retries are used up, the last log says `dead letter`. */
      deadLetter?: boolean;
    }
  /** `$doNotRoute()`: the event is dropped for this route, unlogged. */
  | { kind: "skip" }
  /** The hub is stopping: no log, the entry stays queued for the next start. */
  | { kind: "aborted" };

const decoder = new TextDecoder();

function timeoutOf(settings: JsonObject): number | undefined {
  const t = settings.timeout;
  return typeof t === "number" && t > 0 ? Math.min(t * 1000, MAX_TIMEOUT_MS) : undefined;
}

function headersOf(settings: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  if (isJsonObject(settings.http_headers)) {
    for (const [name, value] of Object.entries(settings.http_headers))
      if (typeof value === "string") out[name] = value;
  }
  return out;
}

/** Where a route delivers (shown in its logs). */
function deliveryUrl(route: RouteRecord): string {
  const settings = route.settings;
  return route.type === "mqtt"
    ? `${brokerUrl(settings)}/${String(settings.topic ?? "")}`
    : String(settings.url ?? settings.webhook_url ?? "");
}

/** A route whose transform evaluates a user's JSONata expression for each event. */
function usesJsonata(route: RouteRecord): boolean {
  const transform = route.settings.transform;
  return isJsonObject(transform) && transform.format === "jsonata";
}

/** A proxy route's URL with the request's `name` appended: one slash between them, a query as is. */
export function proxyUrl(base: string, name: string): string {
  if (name === "") return base;
  if (name.startsWith("?")) return base + name;
  return `${base.replace(/\/+$/, "")}/${name.replace(/^\/+/, "")}`;
}

/** A `..` segment, between slashes or backslashes (checked decoded too). */
const DOT_SEGMENT = /(^|[/\\])\.\.([/\\?#]|$)/;

/**
 * The URL a web request through a proxy route reaches: `name` appended to the route's URL
 * (proxyUrl) and resolved, which must stay under the route's URL (its origin, and its path as a
 * folder); undefined when it would leave it (`../secret`, `%2e%2e/secret`, `/..\secret`, …).
 */
export function proxyTargetUrl(base: string, name: string): string | undefined {
  let baseUrl: URL;
  let url: URL;
  try {
    baseUrl = new URL(base);
    url = new URL(proxyUrl(base, name));
  } catch {
    return undefined;
  }
  if (url.origin !== baseUrl.origin || url.username !== baseUrl.username) return undefined;
  // The path as given, decoded (twice: an endpoint may decode again): no dot segments at all.
  const path = name.split(/[?#]/, 1)[0]!;
  let decoded = path;
  for (let i = 0; i < 3; i++) {
    if (DOT_SEGMENT.test(decoded)) return undefined;
    try {
      const next = decodeURIComponent(decoded);
      if (next === decoded) break;
      decoded = next;
    } catch {
      break;
    }
  }
  if (DOT_SEGMENT.test(decoded)) return undefined;
  const folder = baseUrl.pathname.endsWith("/") ? baseUrl.pathname : `${baseUrl.pathname}/`;
  if (url.pathname !== baseUrl.pathname && !url.pathname.startsWith(folder)) return undefined;
  return url.href;
}

/** The URL a delivered route (http, proxy, mqtt) reaches, with the field that sets it. */
function routeTarget(
  route: Pick<RouteRecord, "type" | "schema" | "settings">,
): { url: string; field: string } | undefined {
  const settings = route.settings;
  if (route.type === "mqtt") return { url: brokerUrl(settings), field: `${route.schema}.broker` };
  if (route.type === "http" || route.type === "proxy") {
    const url = settings.url ?? settings.webhook_url;
    return typeof url === "string" && url !== "" ? { url, field: `${route.schema}.url` } : undefined;
  }
  return undefined;
}

/**
 * Routes: their definitions, and the delivery of the project's events to them.
 *
 * The service subscribes to the hub's events. Each event is matched against its project's routes
 * (enabled, fleets, filter) and one delivery per matching route is queued in the store, so that
 * deliveries pending when the hub stops are made when it starts again. A worker on the hub clock
 * (the fake clock drives it in tests) attempts each route's deliveries one at a time in order,
 * all routes side by side, keeping `throttle_ms` between a route's requests and writing one log
 * per attempt. Failed attempts are retried after RETRY_DELAYS_MS. `http` and `mqtt` routes are
 * delivered for real; `proxy` routes serve `webRequest`; every other type is stored and each of
 * its deliveries is logged as not available in this simulator.
 */
export class RoutingService {
  readonly #retryDelays: readonly number[];
  /** The route target policy in force. */
  readonly targets: RouteTargets;
  readonly #http: HttpSender;
  readonly #mqtt: MqttPublisher;
  readonly #jsonata: JsonataCache;
  readonly #unsubscribe: () => void;
  readonly #ready: Promise<void>;
  readonly #stopping = new AbortController();

  /** Route records by UID, and each project's routes (loaded on first use, kept current by CRUD). */
  readonly #routes = new Map<string, RouteRecord>();
  readonly #projects = new Map<string, Promise<RouteRecord[]>>();
  readonly #lanes = new Map<string, Lane>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #intake: EventRecord[] = [];
  #intaking: Promise<void> | null = null;
  readonly #completions: AttemptCompletion[] = [];
  #flushing: Promise<void> | null = null;
  /** Wakes the pump at the earliest due delivery or retry. */
  readonly #alarm: Alarm;
  #stopped = false;

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly ids: HubIds,
    events: EventService,
    private readonly onError: (error: unknown) => void = () => undefined,
    options: RoutingOptions = {},
  ) {
    this.#retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.targets = new RouteTargets(options.targets);
    store.routes.setLogRetention({ ...DEFAULT_LOG_RETENTION, ...options.logRetention });
    this.#http = new HttpSender(clock, this.targets);
    this.#mqtt = new MqttPublisher(clock, this.targets);
    this.#jsonata = new JsonataCache(() => clock.now(), options.jsonata);
    this.#alarm = new Alarm(clock, () => this.#pump());
    this.#unsubscribe = events.subscribe((event) => this.#received(event));
    this.#ready = this.#resume().catch((error: unknown) => this.#report(error));
  }

  // --- definitions ---------------------------------------------------------------------------

  /** The project's routes, oldest first. */
  async list(projectUid: string): Promise<RouteRecord[]> {
    return [...(await this.#routesOf(projectUid))];
  }

  /** A route of the project. */
  async get(projectUid: string, routeUid: string): Promise<RouteRecord | undefined> {
    const route = await this.store.routes.getRoute(routeUid);
    return route && route.projectUid === projectUid ? route : undefined;
  }

  /** Creates a route from a Create Route body (either definition's shape); refusals are ServiceErrors. */
  async create(projectUid: string, body: JsonObject): Promise<RouteRecord> {
    const definition = routeFromBody(body);
    this.#checkTarget(definition);
    await this.#checkFleets(projectUid, definition.settings);
    const now = this.clock.now();
    const route: RouteRecord = {
      uid: `route:${this.ids.uuid().replace(/-/g, "")}`,
      projectUid,
      ...definition,
      created: now,
      modified: now,
    };
    await this.store.routes.createRoute(route);
    this.#changed(route);
    return route;
  }

  /** Applies an Update Route body; undefined when the project has no such route. */
  async update(projectUid: string, routeUid: string, body: JsonObject): Promise<RouteRecord | undefined> {
    const current = await this.get(projectUid, routeUid);
    if (!current) return undefined;
    const definition = routeWithChanges(current, body);
    // Checked when the target changes: a route made under another policy may still be disabled.
    if (routeTarget(definition)?.url !== routeTarget(current)?.url) this.#checkTarget(definition);
    await this.#checkFleets(projectUid, definition.settings);
    const route: RouteRecord = { ...current, ...definition, modified: this.clock.now() };
    await this.store.routes.updateRoute(route);
    this.#changed(route);
    this.#pump();
    return route;
  }

  /** Deletes a route with its pending deliveries (its logs stay); false when there was none. */
  async delete(projectUid: string, routeUid: string): Promise<boolean> {
    const current = await this.get(projectUid, routeUid);
    if (!current) return false;
    await this.store.routes.deleteRoute(routeUid);
    this.#routes.delete(routeUid);
    this.#projects.delete(projectUid);
    this.#lanes.delete(routeUid);
    return true;
  }

  async #checkFleets(projectUid: string, settings: JsonObject): Promise<void> {
    for (const uid of routeFleets({ settings } as RouteRecord)) {
      const fleet = await this.store.projects.getFleet(uid);
      if (!fleet || fleet.projectUid !== projectUid) {
        throw new ServiceError("fleet-elsewhere", uid, `fleet ${uid} is not in ${projectUid}`);
      }
    }
  }

  /** Refuses a delivered route's target the policy refuses as written (checked again at delivery). */
  #checkTarget(definition: Pick<RouteRecord, "type" | "schema" | "settings">): void {
    const target = routeTarget(definition);
    if (!target) return;
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return; // routeSettings has said what is wrong with it
    }
    const why = this.targets.definitionRefusal(url);
    if (why) throw new ServiceError("invalid", target.field, `${target.field}: ${why}`);
  }

  #changed(route: RouteRecord): void {
    this.#routes.set(route.uid, route);
    this.#projects.delete(route.projectUid);
  }

  #routesOf(projectUid: string): Promise<RouteRecord[]> {
    let routes = this.#projects.get(projectUid);
    if (!routes) {
      routes = this.store.routes.listRoutes(projectUid).then((list) => {
        for (const r of list) this.#routes.set(r.uid, r);
        return list;
      });
      routes.catch(() => this.#projects.delete(projectUid));
      this.#projects.set(projectUid, routes);
    }
    return routes;
  }

  // --- queueing --------------------------------------------------------------------------------

  /** The event subscriber: quick, the matching and queueing run in order behind it. */
  #received(event: EventRecord): void {
    if (this.#stopped) return;
    this.#intake.push(event);
    this.#runIntake();
  }

  #runIntake(): void {
    if (this.#intaking) return;
    this.#intaking = this.#intakeAll()
      .catch((error: unknown) => this.#report(error))
      .finally(() => {
        this.#intaking = null;
        if (this.#intake.length > 0 && !this.#stopped) this.#runIntake();
      });
  }

  async #intakeAll(): Promise<void> {
    await this.#ready;
    while (this.#intake.length > 0 && !this.#stopped) {
      const batch = this.#intake.splice(0, INTAKE_BATCH);
      const now = this.clock.now();
      const queued: Pending[] = [];
      // Each project's delivering routes, looked up once a batch: an event of a project without
      // one (most of a sync's events) costs a map lookup.
      const delivering = new Map<string, RouteRecord[]>();
      for (const event of batch) {
        let routes = delivering.get(event.projectUid);
        if (!routes) {
          routes = await this.#delivering(event.projectUid);
          delivering.set(event.projectUid, routes);
        }
        if (routes.length === 0) continue;
        for (const route of await this.#routesFor(event, routes)) {
          queued.push({ entry: this.#entry(route, event, "routing", now), event });
        }
      }
      await this.#enqueue(queued);
    }
  }

  /** A project's routes that deliver events: enabled, not proxies. */
  async #delivering(projectUid: string): Promise<RouteRecord[]> {
    return (await this.#routesOf(projectUid)).filter((r) => !r.disabled && r.type !== "proxy");
  }

  /**
   * The routes an event goes to: of its project's `delivering` routes (looked up when not given),
   * those whose notefile filter takes it and whose fleets its device is in.
   */
  async #routesFor(event: EventRecord, delivering?: readonly RouteRecord[]): Promise<RouteRecord[]> {
    const routes = (delivering ?? (await this.#delivering(event.projectUid))).filter((r) =>
      routeTakesFile(r, event.file),
    );
    if (routes.length === 0) return routes;
    let fleets: string[] | undefined;
    const out: RouteRecord[] = [];
    for (const route of routes) {
      if (routeFleets(route).length > 0) {
        fleets ??= (await this.store.devices.getDevice(event.deviceUid))?.fleetUids ?? [];
        if (!routeTakesDevice(route, fleets)) continue;
      }
      out.push(route);
    }
    return out;
  }

  #entry(route: RouteRecord, event: EventRecord, source: RouteSource, now: number): RouteQueueEntry {
    return {
      seq: 0,
      routeUid: route.uid,
      projectUid: event.projectUid,
      eventUid: event.uid,
      attempt: 0,
      dueMs: now,
      source,
    };
  }

  /** Stores deliveries (one transaction), then hands them to their lanes. */
  async #enqueue(queued: Pending[]): Promise<void> {
    if (queued.length === 0) return;
    const saved = await this.store.routes.enqueue(queued.map((p) => p.entry));
    saved.forEach((entry, i) => this.#addToLane({ entry, event: queued[i]!.event }));
    this.#pump();
  }

  #addToLane(pending: Pending): void {
    const uid = pending.entry.routeUid;
    let lane = this.#lanes.get(uid);
    if (!lane) {
      lane = { entries: new DueQueue(), busy: false, nextStartAt: 0 };
      this.#lanes.set(uid, lane);
    }
    lane.entries.push(pending);
  }

  /** Deliveries pending when the hub stopped: back into their lanes. */
  async #resume(): Promise<void> {
    const entries = await this.store.routes.pendingDeliveries();
    for (const uid of new Set(entries.map((e) => e.routeUid))) {
      const route = await this.store.routes.getRoute(uid);
      if (route) this.#routes.set(uid, route);
    }
    for (const entry of entries) this.#addToLane({ entry });
    this.#pump();
  }

  /**
   * Queues the event again for the routes named (every route whose filters take it when none
   * are): the hosted console's manual re-route (no REST operation exists for it). Resolves with
   * the routes it was queued for; undefined when the project has no such event.
   */
  async reroute(projectUid: string, eventUid: string, routeUids?: string[]): Promise<string[] | undefined> {
    await this.#ready;
    const event = await this.store.telemetry.getEvent(projectUid, eventUid);
    if (!event) return undefined;
    let routes: RouteRecord[];
    if (routeUids) {
      routes = [];
      const known = await this.#routesOf(projectUid);
      for (const uid of routeUids) {
        const route = known.find((r) => r.uid === uid);
        if (!route) throw new ServiceError("invalid", uid, `route ${uid} is not a route of ${projectUid}`);
        if (route.type !== "proxy") routes.push(route);
      }
    } else {
      routes = await this.#routesFor(event);
    }
    const now = this.clock.now();
    await this.#enqueue(
      routes.map((route) => ({ entry: this.#entry(route, event, "manual reroute", now), event })),
    );
    return routes.map((r) => r.uid);
  }

  // --- the worker ------------------------------------------------------------------------------

  /** Starts every attempt that may start now, and sets the clock for the next one that may not. */
  #pump(): void {
    if (this.#stopped) return;
    const now = this.clock.now();
    let wake = Infinity;
    for (const [uid, lane] of this.#lanes) {
      if (lane.busy || lane.entries.size === 0) continue;
      const route = this.#routes.get(uid);
      if (!route) {
        // Deleted: its queue rows went with it.
        this.#lanes.delete(uid);
        continue;
      }
      if (route.disabled) continue; // held until the route is enabled again
      const head = lane.entries.peek()!;
      const startAt = Math.max(head.entry.dueMs, lane.nextStartAt);
      if (startAt > now) {
        wake = Math.min(wake, startAt);
        continue;
      }
      this.#start(uid, lane, route, head, now);
    }
    this.#alarm.at(wake, now);
    if (this.#inflight.size === 0 && this.#completions.length > 0) void this.#flush();
  }

  #start(uid: string, lane: Lane, route: RouteRecord, pending: Pending, now: number): void {
    lane.busy = true;
    const throttle = route.settings.throttle_ms;
    lane.nextStartAt = now + (typeof throttle === "number" && throttle > 0 ? throttle : 0);
    const attempt = this.#attempt(uid, lane, route, pending)
      .catch((error: unknown) => this.#report(error))
      .finally(() => {
        lane.busy = false;
        this.#inflight.delete(attempt);
        this.#pump();
      });
    this.#inflight.add(attempt);
  }

  async #attempt(uid: string, lane: Lane, route: RouteRecord, pending: Pending): Promise<void> {
    const { entry } = pending;
    const started = this.clock.now();
    const event = pending.event ?? (await this.store.telemetry.getEvent(entry.projectUid, entry.eventUid));
    let outcome: Outcome;
    if (!event) {
      outcome = {
        kind: "logged",
        attn: true,
        status: "event gone",
        text: "the event no longer exists (its device was deleted with its history)",
        url: "",
        retry: false,
      };
    } else if ((entry.begun ?? 0) > 0) {
      // The hub stopped (died) during an earlier start of this attempt, its JSONata evaluated or
      // its request under way: a failed attempt, not one more try of what may have killed it.
      outcome = {
        kind: "logged",
        attn: true,
        status: "interrupted",
        text: `the hub stopped during attempt ${entry.attempt + 1} of this delivery (its JSONata transform may have ended it): counted as a failed attempt`,
        url: deliveryUrl(route),
        retry: true,
        deadLetter: true,
      };
    } else if (usesJsonata(route)) {
      // Counted durably before the user's expression runs (see beginAttempt).
      // An earlier attempt's ending of this entry, not yet written, must not undo the count.
      if (this.#flushing) await this.#flushing;
      if (this.#completions.some((c) => c.seq === entry.seq)) await this.#flush();
      await this.store.routes.beginAttempt(entry.seq);
      outcome = await this.#deliver(route, event);
      if (outcome.kind === "aborted" || this.#stopped) await this.store.routes.abandonAttempt(entry.seq);
    } else {
      outcome = await this.#deliver(route, event);
    }
    if (outcome.kind === "aborted" || this.#stopped) return;
    const finished = this.clock.now();
    const log: RouteLogRecord | null =
      outcome.kind === "logged"
        ? {
            projectUid: entry.projectUid,
            routeUid: uid,
            eventUid: entry.eventUid,
            deviceUid: event?.deviceUid ?? "",
            file: event?.file ?? "",
            dateMs: started,
            durationMs: finished - started,
            attn: outcome.attn,
            status: outcome.status,
            text: outcome.text,
            url: outcome.url,
            source: entry.source,
          }
        : null;
    const delay = outcome.kind === "logged" && outcome.retry ? this.#retryDelays[entry.attempt] : undefined;
    if (log && outcome.kind === "logged" && outcome.retry && outcome.deadLetter && delay === undefined) {
      // Retries used up: the delivery is dropped from the queue, and its last log says so.
      log.status = "dead letter";
      log.text = `${outcome.text}; dead-lettered after ${entry.attempt + 1} attempt${entry.attempt === 0 ? "" : "s"}: not retried again`;
    }
    const next =
      delay === undefined
        ? null
        : { attempt: entry.attempt + 1, dueMs: finished + delay, source: "retry" as const };
    this.#complete({ seq: entry.seq, log, next });
    lane.entries.remove(pending);
    if (next && this.#lanes.get(uid) === lane) {
      entry.begun = 0;
      entry.attempt = next.attempt;
      entry.dueMs = next.dueMs;
      entry.source = next.source;
      pending.event = event;
      this.#addToLane(pending);
    }
  }

  /**
   * Group commit: ended attempts are written COMPLETION_BATCH at a time, or as soon as no attempt
   * is in flight, so a busy route does not pay one store commit per event. Until then a delivery
   * made is still queued in the store: should the hub die in between, it is made again at the
   * next start (at least once, never lost).
   */
  #complete(completion: AttemptCompletion): void {
    this.#completions.push(completion);
    if (this.#completions.length >= COMPLETION_BATCH) void this.#flush();
  }

  #flush(): Promise<void> {
    const batch = this.#completions.splice(0);
    if (batch.length === 0) return this.#flushing ?? Promise.resolve();
    const run = (this.#flushing ?? Promise.resolve())
      .then(() => this.store.routes.completeAttempts(batch))
      .catch((error: unknown) => this.#report(error));
    const tracked: Promise<void> = run.finally(() => {
      if (this.#flushing === tracked) this.#flushing = null;
    });
    this.#flushing = tracked;
    return tracked;
  }

  async #deliver(route: RouteRecord, event: EventRecord): Promise<Outcome> {
    const settings = route.settings;
    const url = deliveryUrl(route);
    if (!DELIVERED_TYPES.has(route.type) || route.type === "proxy") {
      return {
        kind: "logged",
        attn: true,
        status: "not available",
        text: `routes of type ${route.type} are not available in this simulator: the event was not sent`,
        url,
        retry: false,
      };
    }
    const transform = isJsonObject(settings.transform) ? settings.transform : undefined;
    const made = transformEvent(event, transform, this.#jsonata);
    const body = made instanceof Promise ? await made : made;
    if (body.kind === "skip") return { kind: "skip" };
    if (body.kind === "error") {
      if (body.limit) {
        // Stopped at a limit (time, memory, result size): a wall-clock limit may have been reached
        // on a busy machine, so the attempt is retried like any failed one, then dead-lettered.
        const text = body.text;
        return {
          kind: "logged",
          attn: true,
          status: "transform limit",
          text,
          url,
          retry: true,
          deadLetter: true,
        };
      }
      return { kind: "logged", attn: true, status: "transform error", text: body.text, url, retry: false };
    }
    const timeoutMs = timeoutOf(settings) ?? DEFAULT_TIMEOUT_MS;
    if (route.type === "mqtt") {
      const result = await this.#mqtt.publish(
        route.uid,
        settings,
        body.body,
        timeoutMs,
        this.#stopping.signal,
      );
      if (result.kind === "aborted") return result;
      if (result.kind === "published") {
        return { kind: "logged", attn: false, status: "published", text: "", url, retry: false };
      }
      const status = { timeout: "timeout", connection: "connection failed", refused: "refused" }[
        result.reason
      ];
      return {
        kind: "logged",
        attn: true,
        status,
        text: result.message,
        url,
        retry: result.reason !== "refused",
      };
    }
    const headers: Record<string, string> =
      settings.disable_http_headers === true
        ? {}
        : {
            "User-Agent": "cardsim-hub",
            "X-Cardsim-Route": route.uid,
            "X-Cardsim-Event": event.uid,
            ...headersOf(settings),
          };
    headers["Content-Type"] = body.contentType;
    const result = await this.#http.send({
      method: "POST",
      url,
      headers,
      body: body.body,
      timeoutMs,
      maxBytes: LOG_TEXT_BYTES,
    });
    return this.#httpOutcome(result, url);
  }

  #httpOutcome(result: OutboundResult, url: string): Outcome {
    switch (result.kind) {
      case "aborted":
        return result;
      case "failed": {
        const status = {
          timeout: "timeout",
          connection: "connection failed",
          invalid: "invalid response",
          refused: "refused",
        }[result.reason];
        // A refused target stays refused: not retried.
        return {
          kind: "logged",
          attn: true,
          status,
          text: result.message,
          url,
          retry: result.reason !== "refused",
        };
      }
      case "response": {
        const { status } = result;
        const text =
          status >= 300 && status < 400
            ? `redirect to ${result.headers.location ?? "(no location)"} not followed`
            : decoder.decode(result.body);
        return {
          kind: "logged",
          attn: status >= 300 || status < 200,
          status: String(status),
          text,
          url,
          retry: status >= 500,
        };
      }
    }
  }

  // --- proxy routes ----------------------------------------------------------------------------

  /**
   * The enabled proxy route of the project with this alias, as a web request uses it; with a
   * device, undefined also when the route is limited to fleets the device is not in.
   */
  async proxy(projectUid: string, alias: string, deviceUid?: string): Promise<ProxyTarget | undefined> {
    const route = (await this.#routesOf(projectUid)).find(
      (r) => r.type === "proxy" && !r.disabled && r.settings.alias === alias,
    );
    if (!route) return undefined;
    if (deviceUid !== undefined && routeFleets(route).length > 0) {
      const device = await this.store.devices.getDevice(deviceUid);
      if (!routeTakesDevice(route, device?.fleetUids ?? [])) return undefined;
    }
    return {
      routeUid: route.uid,
      url: String(route.settings.url ?? ""),
      headers: headersOf(route.settings),
      timeoutMs: timeoutOf(route.settings),
      transform: isJsonObject(route.settings.transform) ? route.settings.transform : {},
    };
  }

  /**
   * A module's web request through the proxy route named by `alias`: the route's URL with `name`
   * appended, its headers, its timeout, its JSONata (`jsonata` on a JSON request body, `jsonata_in`
   * on a JSON answer). Redirects are returned, never followed. Every request that reached the
   * network is logged (source `web proxy`); refusals and failures are WebRequestErrors.
   */
  async webRequest(req: WebRequest): Promise<WebResponse> {
    const target = await this.proxy(req.projectUid, req.alias, req.deviceUid);
    if (!target) {
      throw new WebRequestError("no-route", `no proxy route with alias ${req.alias} serves ${req.deviceUid}`);
    }
    const url = proxyTargetUrl(target.url, req.name ?? "");
    if (url === undefined) {
      const text = `name ${JSON.stringify(req.name ?? "")} leaves the route's URL ${target.url}: not sent`;
      await this.store.routes.addLog({
        projectUid: req.projectUid,
        routeUid: target.routeUid,
        eventUid: req.eventUid ?? "",
        deviceUid: req.deviceUid,
        file: "",
        dateMs: this.clock.now(),
        durationMs: 0,
        attn: true,
        status: "refused",
        text,
        url: target.url,
        source: "web proxy",
      });
      throw new WebRequestError("no-route", `proxy route ${req.alias}: ${text}`);
    }
    const contentType = req.contentType ?? "application/json";
    let body = req.body ?? null;
    const outgoing = typeof target.transform.jsonata === "string" ? target.transform.jsonata : "";
    if (body && outgoing.trim() !== "" && /json/i.test(contentType)) {
      body = await this.#reshape(outgoing, body, req, target.routeUid, url);
    }
    const headers: Record<string, string> = { ...target.headers };
    if (body) headers["Content-Type"] = contentType;
    Object.assign(headers, req.headers ?? {});
    const timeoutMs = Math.min(target.timeoutMs ?? Infinity, req.timeoutMs ?? WEB_TIMEOUT_MS);
    const started = this.clock.now();
    const work = this.#http.send({
      method: (req.method ?? "POST").toUpperCase(),
      url,
      headers,
      body,
      timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : WEB_TIMEOUT_MS,
      maxBytes: req.maxBytes ?? WEB_MAX_BYTES,
    });
    const tracked = work.then(() => undefined);
    this.#inflight.add(tracked);
    let result: OutboundResult;
    try {
      result = await work;
    } finally {
      this.#inflight.delete(tracked);
    }
    if (result.kind === "aborted") throw new WebRequestError("unreachable", "the hub is stopping");
    const outcome = this.#httpOutcome(result, url);
    if (outcome.kind === "logged") {
      await this.store.routes.addLog({
        projectUid: req.projectUid,
        routeUid: target.routeUid,
        eventUid: req.eventUid ?? "",
        deviceUid: req.deviceUid,
        file: "",
        dateMs: started,
        durationMs: this.clock.now() - started,
        attn: outcome.attn,
        status: outcome.status,
        text:
          result.kind === "response" ? decoder.decode(result.body.subarray(0, LOG_TEXT_BYTES)) : outcome.text,
        url,
        source: "web proxy",
      });
    }
    if (result.kind === "failed") {
      throw new WebRequestError(result.reason === "timeout" ? "timeout" : "unreachable", result.message);
    }
    if (result.kind !== "response") throw new WebRequestError("unreachable", "no answer");
    let answer = result.body;
    const incoming = typeof target.transform.jsonata_in === "string" ? target.transform.jsonata_in : "";
    if (incoming.trim() !== "" && /json/i.test(result.headers["content-type"] ?? "") && !result.truncated) {
      answer = await this.#reshape(incoming, answer, req, target.routeUid, url);
    }
    return {
      status: result.status,
      headers: headerMap(result.headers),
      body: answer,
      truncated: result.truncated,
      url,
      routeUid: target.routeUid,
    };
  }

  /**
   * A JSON document reshaped by a proxy route's JSONata; a failure (the expression's own, or a
   * limit reached) is logged for the route (source `web proxy`) and fails the web request.
   */
  async #reshape(
    source: string,
    bytes: Uint8Array,
    req: WebRequest,
    routeUid: string,
    url: string,
  ): Promise<Uint8Array> {
    let input: unknown;
    try {
      input = JSON.parse(decoder.decode(bytes));
    } catch {
      return bytes; // not JSON after all: sent as it is
    }
    const started = this.clock.now();
    try {
      const { value, json } = await this.#jsonata.evaluate(source, input);
      return new TextEncoder().encode(typeof value === "string" ? value : (json ?? "null"));
    } catch (error) {
      const limit = error instanceof JsonataError && error.limit;
      await this.store.routes
        .addLog({
          projectUid: req.projectUid,
          routeUid,
          eventUid: req.eventUid ?? "",
          deviceUid: req.deviceUid,
          file: "",
          dateMs: started,
          durationMs: this.clock.now() - started,
          attn: true,
          status: limit ? "transform limit" : "transform error",
          text: (error as Error).message,
          url,
          source: "web proxy",
        })
        .catch((failure: unknown) => this.#report(failure));
      throw new WebRequestError("transform", (error as Error).message);
    }
  }

  // --- control ---------------------------------------------------------------------------------

  /**
   * Resolves once nothing is left to do now: every event heard has been queued and every attempt
   * that was due has ended (later ones wait for their time on the clock). On a fake clock, tests
   * advance the clock to the next due time and settle again; an attempt in flight keeps this
   * waiting until its real I/O ends, so advance the clock past a hung request's timeout first.
   */
  async settle(): Promise<void> {
    for (;;) {
      await this.#ready;
      if (this.#intaking) {
        await this.#intaking;
        continue;
      }
      if (this.#inflight.size > 0) {
        await Promise.allSettled([...this.#inflight]);
        continue;
      }
      this.#pump();
      if (this.#inflight.size > 0 || this.#intaking) continue;
      if (this.#completions.length > 0 || this.#flushing) {
        await this.#flush();
        continue;
      }
      return;
    }
  }

  /** Attempts and web requests in flight now. */
  inFlight(): number {
    return this.#inflight.size;
  }

  /** Deliveries waiting or in flight (queued in the store), per route UID. */
  pending(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [uid, lane] of this.#lanes) if (lane.entries.size > 0) out.set(uid, lane.entries.size);
    return out;
  }

  /**
   * Stops delivering: no more events are taken, attempts in flight are abandoned unlogged (their
   * deliveries stay queued in the store for the next start), connections are closed.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#unsubscribe();
    this.#alarm.cancel();
    this.#stopping.abort();
    this.#http.abortAll();
    // Evaluations under way fail now (their attempts see the stop and stay queued).
    const evaluator = this.#jsonata.close();
    await this.#ready;
    await this.#intaking;
    await Promise.allSettled([...this.#inflight]);
    await this.#flush();
    this.#http.close();
    await this.#mqtt.close();
    await evaluator;
  }

  #report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // Reporting must not stop routing.
    }
  }
}
