import { randomBytes } from "node:crypto";
import { Alarm } from "../../core/Alarm.js";
import type { Clock } from "../../core/Clock.js";
import { ServiceError } from "../ServiceError.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";
import type {
  AttemptCompletion,
  RouteLogRecord,
  RouteQueueEntry,
  RouteRecord,
  RouteSource,
} from "../store/RouteStore.js";
import type { AttemptSender, Outcome } from "./AttemptSender.js";
import { DueQueue } from "./DueQueue.js";
import type { RouteCatalogue } from "./RouteCatalogue.js";
import { deliveryUrl, usesJsonata } from "./routeFields.js";

/**
 * After a failed attempt (no connection, timeout, invalid response, 5xx) the event is tried again
 * 1, 3 and 6 minutes later: "up to three more times over about six minutes", as the hosted hub
 * does. Each retry is its own attempt with its own log.
 */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000, 180_000];
/** Events read from the subscriber's queue per store transaction. */
const INTAKE_BATCH = 500;
/** Ended attempts written per store transaction at most (see #complete). */
const COMPLETION_BATCH = 64;
/** How often (real time) a hub process over a shared store looks for deliveries of processes gone. */
const TAKE_OVER_EVERY_MS = 5_000;

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

/**
 * The delivery queue: events heard are matched against their project's routes and one delivery
 * per matching route is queued in the store (intake), so that deliveries pending when the hub
 * stops are made when it starts again (resume). A worker on the hub clock (the pump) attempts
 * each route's deliveries one at a time in order, all routes side by side, keeping `throttle_ms`
 * between a route's requests; each attempt's ending (its log, its retry or its dead letter) is
 * written to the store in groups. Each delivery is made by the hub process that queued (or
 * claimed) it: over a store several processes share, one that stops or dies leaves its deliveries
 * to the first of the others to claim them (RouteStore.claimDeliveries).
 */
export class DeliveryQueue {
  /** The process queueing and claiming deliveries (a run of its own on a store of one process). */
  readonly #node: string;
  #takeOver: NodeJS.Timeout | undefined;
  readonly #lanes = new Map<string, Lane>();
  readonly #intake: EventRecord[] = [];
  #intaking: Promise<void> | null = null;
  readonly #completions: AttemptCompletion[] = [];
  #flushing: Promise<void> | null = null;
  /** Wakes the pump at the earliest due delivery or retry. */
  readonly #alarm: Alarm;
  #ready: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly catalogue: RouteCatalogue,
    private readonly sender: AttemptSender,
    private readonly retryDelays: readonly number[],
    /** Attempts and web requests in flight (shared with the proxy's web requests). */
    private readonly inflight: Set<Promise<void>>,
    private readonly report: (error: unknown) => void,
    /** Told of each attempt's log as the attempt ends. */
    private readonly onAttempt: (log: RouteLogRecord) => void = () => undefined,
    /** Told when an attempt starts or ends and when ended attempts are written (logs). */
    private readonly changed: () => void = () => undefined,
  ) {
    this.#alarm = new Alarm(clock, () => this.pump());
    this.#node = store.cluster?.node ?? `run:${randomBytes(8).toString("hex")}`;
  }

  /**
   * Puts the deliveries pending when the hub stopped back into their lanes (once, at start); over
   * a shared store, takes over from then on those of processes that stop or die.
   */
  start(): void {
    this.#ready = this.#resume().catch((error: unknown) => this.report(error));
    if (!this.store.cluster) return;
    this.#takeOver = setInterval(() => {
      if (!this.#stopped)
        this.#ready = this.#ready.then(() => this.#resume()).catch((e: unknown) => this.report(e));
    }, TAKE_OVER_EVERY_MS);
    this.#takeOver.unref();
  }

  /** The events subscriber (a committed batch): quick, the matching and queueing run in order behind it. */
  received(events: readonly EventRecord[]): void {
    if (this.#stopped) return;
    for (const event of events) this.#intake.push(event);
    this.#runIntake();
  }

  #runIntake(): void {
    if (this.#intaking) return;
    this.#intaking = this.#intakeAll()
      .catch((error: unknown) => this.report(error))
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
          routes = await this.catalogue.delivering(event.projectUid);
          delivering.set(event.projectUid, routes);
        }
        if (routes.length === 0) continue;
        for (const route of await this.catalogue.routesFor(event, routes)) {
          queued.push({ entry: this.#entry(route, event, "routing", now), event });
        }
      }
      await this.#enqueue(queued);
    }
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
    const saved = await this.store.routes.enqueue(
      queued.map((p) => p.entry),
      this.#node,
    );
    saved.forEach((entry, i) => this.#addToLane({ entry, event: queued[i]!.event }));
    this.pump();
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

  /** A deleted route's lane goes (its queue rows went with the route). */
  dropLane(routeUid: string): void {
    this.#lanes.delete(routeUid);
  }

  /** Deliveries no live process makes (pending when the hub stopped): claimed, into their lanes. */
  async #resume(): Promise<void> {
    const live = (await this.store.cluster?.liveNodes()) ?? [this.#node];
    const entries = await this.store.routes.claimDeliveries(this.#node, live);
    if (entries.length === 0) return;
    for (const uid of new Set(entries.map((e) => e.routeUid))) {
      const route = await this.store.routes.getRoute(uid);
      if (route) this.catalogue.remember(route);
    }
    for (const entry of entries) this.#addToLane({ entry });
    this.pump();
  }

  /** See RoutingService.reroute. */
  async reroute(projectUid: string, eventUid: string, routeUids?: string[]): Promise<string[] | undefined> {
    await this.#ready;
    const event = await this.store.telemetry.getEvent(projectUid, eventUid);
    if (!event) return undefined;
    let routes: RouteRecord[];
    if (routeUids) {
      routes = [];
      const known = await this.catalogue.routesOf(projectUid);
      for (const uid of routeUids) {
        const route = known.find((r) => r.uid === uid);
        if (!route) throw new ServiceError("invalid", uid, `route ${uid} is not a route of ${projectUid}`);
        if (route.type !== "proxy") routes.push(route);
      }
    } else {
      routes = await this.catalogue.routesFor(event);
    }
    const now = this.clock.now();
    await this.#enqueue(
      routes.map((route) => ({ entry: this.#entry(route, event, "manual reroute", now), event })),
    );
    return routes.map((r) => r.uid);
  }

  // --- the worker ------------------------------------------------------------------------------

  /** Starts every attempt that may start now, and sets the clock for the next one that may not. */
  pump(): void {
    if (this.#stopped) return;
    const now = this.clock.now();
    let wake = Infinity;
    for (const [uid, lane] of this.#lanes) {
      if (lane.busy || lane.entries.size === 0) continue;
      const route = this.catalogue.cached(uid);
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
    if (this.inflight.size === 0 && this.#completions.length > 0) void this.#flush();
  }

  #start(uid: string, lane: Lane, route: RouteRecord, pending: Pending, now: number): void {
    lane.busy = true;
    const throttle = route.settings.throttle_ms;
    lane.nextStartAt = now + (typeof throttle === "number" && throttle > 0 ? throttle : 0);
    const attempt = this.#attempt(uid, lane, route, pending)
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        lane.busy = false;
        this.inflight.delete(attempt);
        this.pump();
        this.changed();
      });
    this.inflight.add(attempt);
    this.changed();
  }

  async #attempt(uid: string, lane: Lane, route: RouteRecord, pending: Pending): Promise<void> {
    const { entry } = pending;
    const started = this.clock.now();
    const event = pending.event ?? (await this.store.telemetry.getEvent(entry.projectUid, entry.eventUid));
    const outcome = await this.#outcome(route, entry, event);
    if (outcome.kind === "aborted" || this.#stopped) return;
    this.#ended(uid, lane, pending, event, outcome, started);
  }

  /** What the attempt comes to: sent (counted durably first when it runs a user's JSONata), or not. */
  async #outcome(
    route: RouteRecord,
    entry: RouteQueueEntry,
    event: EventRecord | undefined,
  ): Promise<Outcome> {
    if (!event) {
      return {
        kind: "logged",
        attn: true,
        status: "event gone",
        text: "the event no longer exists (its device was deleted with its history)",
        url: "",
        retry: false,
      };
    }
    if ((entry.begun ?? 0) > 0) {
      // The hub stopped (died) during an earlier start of this attempt, its JSONata evaluated or
      // its request under way: a failed attempt, not one more try of what may have killed it.
      return {
        kind: "logged",
        attn: true,
        status: "interrupted",
        text: `the hub stopped during attempt ${entry.attempt + 1} of this delivery (its JSONata transform may have ended it): counted as a failed attempt`,
        url: deliveryUrl(route),
        retry: true,
        deadLetter: true,
      };
    }
    if (!usesJsonata(route)) return this.sender.deliver(route, event);
    // Counted durably before the user's expression runs (see beginAttempt).
    // An earlier attempt's ending of this entry, not yet written, must not undo the count.
    if (this.#flushing) await this.#flushing;
    if (this.#completions.some((c) => c.seq === entry.seq)) await this.#flush();
    await this.store.routes.beginAttempt(entry.seq);
    const outcome = await this.sender.deliver(route, event);
    if (outcome.kind === "aborted" || this.#stopped) await this.store.routes.abandonAttempt(entry.seq);
    return outcome;
  }

  /** An attempt that ended: its log, and its retry (back into the lane) or its dead letter. */
  #ended(
    uid: string,
    lane: Lane,
    pending: Pending,
    event: EventRecord | undefined,
    outcome: Exclude<Outcome, { kind: "aborted" }>,
    started: number,
  ): void {
    const { entry } = pending;
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
    const delay = outcome.kind === "logged" && outcome.retry ? this.retryDelays[entry.attempt] : undefined;
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
    if (log) this.onAttempt(log);
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
      .then(() => this.changed())
      .catch((error: unknown) => this.report(error));
    const tracked: Promise<void> = run.finally(() => {
      if (this.#flushing === tracked) this.#flushing = null;
    });
    this.#flushing = tracked;
    return tracked;
  }

  /** See RoutingService.settle. */
  async settle(): Promise<void> {
    for (;;) {
      await this.#ready;
      if (this.#intaking) {
        await this.#intaking;
        continue;
      }
      if (this.inflight.size > 0) {
        await Promise.allSettled([...this.inflight]);
        continue;
      }
      this.pump();
      if (this.inflight.size > 0 || this.#intaking) continue;
      if (this.#completions.length > 0 || this.#flushing) {
        await this.#flush();
        continue;
      }
      return;
    }
  }

  /** Deliveries waiting or in flight (queued in the store), per route UID. */
  pending(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [uid, lane] of this.#lanes) if (lane.entries.size > 0) out.set(uid, lane.entries.size);
    return out;
  }

  /** No more events taken, no more attempts started (the first step of stopping). */
  halt(): void {
    this.#stopped = true;
    clearInterval(this.#takeOver);
    this.#alarm.cancel();
  }

  /** After `halt`: waits for the intake and the attempts under way, then writes their endings. */
  async drain(): Promise<void> {
    await this.#ready;
    await this.#intaking;
    await Promise.allSettled([...this.inflight]);
    await this.#flush();
  }
}
