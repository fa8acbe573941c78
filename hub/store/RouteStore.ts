import type { JsonObject } from "../../core/json.js";

/** Why an attempt was made (shown in route logs as `source`). */
/** `test`: a sample event sent through the route by hand (RoutingService.test), never stored as an event. */
export type RouteSource = "routing" | "retry" | "manual reroute" | "web proxy" | "test";

/** A route of a project: where its events go, with the settings of its type. */
export interface RouteRecord {
  /** `route:<32 hex>`. */
  uid: string;
  projectUid: string;
  label: string;
  /** The route type (`http`, `mqtt`, `aws-lambda`, ...). */
  type: string;
  /** The member naming the settings object (`http`, `mqtt`, `aws`, ...). */
  schema: string;
  disabled: boolean;
  notes: string | null;
  /** The settings object as stored (secrets included; views mask them). */
  settings: JsonObject;
  created: number;
  modified: number;
}

/** One delivery waiting for its turn: an event for a route, or a retry of one. */
export interface RouteQueueEntry {
  seq: number;
  routeUid: string;
  projectUid: string;
  eventUid: string;
  /** 0 for the first attempt, then 1, 2, 3 for the retries. */
  attempt: number;
  /** Epoch ms at which it may be attempted. */
  dueMs: number;
  source: RouteSource;
  /**
   * Attempts of this entry begun (beginAttempt) and never ended: the hub stopped during them.
   * 0 when queued and after every ended attempt.
   */
  begun?: number;
}

export type NewRouteQueueEntry = Omit<RouteQueueEntry, "seq">;

/** How an attempt ended, for the store: its log, and its retry if there is one. */
export interface AttemptCompletion {
  seq: number;
  log: RouteLogRecord | null;
  next: { attempt: number; dueMs: number; source: RouteSource } | null;
}

/** One attempt to deliver an event (or a proxied web request) through a route. */
export interface RouteLogRecord {
  projectUid: string;
  routeUid: string;
  /** "" for a web request that belongs to no event. */
  eventUid: string;
  deviceUid: string;
  /** The event's notefile ("" for web requests). */
  file: string;
  dateMs: number;
  durationMs: number;
  /** True when the attempt failed or the endpoint answered with an error. */
  attn: boolean;
  status: string;
  text: string;
  url: string;
  source: RouteSource;
}

export interface RouteLogFilter {
  routeUid?: string;
  eventUid?: string;
  deviceUids?: string[];
  files?: string[];
  systemFilesOnly?: boolean;
  /** Epoch seconds, inclusive. */
  startSec?: number;
  endSec?: number;
  /** Only the newest attempt per event (and route). */
  mostRecentOnly?: boolean;
  /** `success` (attn false) and/or `failure` (attn true). */
  routingStatus?: ("success" | "failure")[];
  /** Statuses as logged (`200`, `500`, `timeout`, ...). */
  responseStatus?: string[];
  sortBy: "date" | "event";
  sortOrder: "asc" | "desc";
}

/** Route log counts of one route (or the project: routeUid "") in one period. */
export interface RouteLogUsageRow {
  routeUid: string;
  /** Epoch seconds the period starts at (UTC; weeks start on Monday). */
  periodSec: number;
  successful: number;
  failed: number;
  /** Mean duration of the attempts that recorded one (duration > 0), or null. */
  avgLatencyMs: number | null;
}

/** How many route logs are kept: the newest `keepPerRoute` of each route, none older than `maxAgeMs`. */
export interface RouteLogRetention {
  /** Logs kept per route (the newest); 0 or less: no limit. */
  keepPerRoute: number;
  /** Logs older than this (ms before the newest log written) are dropped; 0 or less: no limit. */
  maxAgeMs: number;
}

/**
 * Routes, their delivery queue and their logs. The queue lives here so that deliveries pending at
 * a restart are attempted when the hub comes back.
 */
export interface RouteStore {
  createRoute(route: RouteRecord): Promise<void>;
  getRoute(uid: string): Promise<RouteRecord | undefined>;
  /** Routes of a project, oldest first. */
  listRoutes(projectUid: string): Promise<RouteRecord[]>;
  /** Replaces the route's label, flags and settings; throws `not-found`. */
  updateRoute(route: RouteRecord): Promise<void>;
  /** Removes the route and its pending deliveries (its logs stay); false when there was none. */
  deleteRoute(uid: string): Promise<boolean>;

  /**
   * Queues deliveries as one unit, made by the hub process `owner` (none: by whichever claims them);
   * returns them with their sequence numbers.
   */
  enqueue(entries: NewRouteQueueEntry[], owner?: string): Promise<RouteQueueEntry[]>;
  /** Every pending delivery, in queueing order. */
  pendingDeliveries(): Promise<RouteQueueEntry[]>;
  /**
   * Takes for the hub process `owner` every pending delivery that no process among `live` makes
   * (queued without an owner, or by a process that stopped or died), in queueing order. Several
   * processes claiming at once each get their own share: a delivery is claimed by one of them
   * only (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDeliveries(owner: string, live: readonly string[]): Promise<RouteQueueEntry[]>;
  /**
   * Ends attempts, in order, as one unit: each writes its log (if any) and removes its queue
   * entry or, with `next`, turns it into the retry. An entry already gone (its route was deleted)
   * is skipped, log and all.
   */
  completeAttempts(completions: readonly AttemptCompletion[]): Promise<void>;
  /**
   * Records, durably before it starts, that an attempt of the entry begins (its `begun` count goes
   * up; ending the attempt, or abandonAttempt, sets it back), so that the next start knows of an
   * attempt the hub died during.
   */
  beginAttempt(seq: number): Promise<void>;
  /** An attempt begun and abandoned unended by a hub stopping in good order: not counted. */
  abandonAttempt(seq: number): Promise<void>;
  addLog(log: RouteLogRecord): Promise<void>;
  /**
   * Sets the retention of route logs, applied as logs are written: the routes written to keep
   * their newest `keepPerRoute`, and (at most once a minute of log time) logs older than
   * `maxAgeMs` before the newest log written are dropped. The store's default keeps everything.
   */
  setLogRetention(retention: RouteLogRetention): void;
  /** Logs of a project matching the filter, paged. */
  listLogs(
    projectUid: string,
    filter: RouteLogFilter,
    page: { offset: number; limit: number },
  ): Promise<RouteLogRecord[]>;
  /** Counts per period (and route, unless `byProject`) of logs in [fromSec, toSec). */
  logUsage(
    projectUid: string,
    query: {
      period: "day" | "week" | "month";
      fromSec: number;
      toSec: number;
      routeUids: string[];
      byProject: boolean;
    },
  ): Promise<RouteLogUsageRow[]>;
}
