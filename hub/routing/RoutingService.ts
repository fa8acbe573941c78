import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { EventService } from "../events/EventService.js";
import { JsonataCache, type JsonataOptions } from "../events/JsonataCache.js";
import type { HubIds } from "../HubIds.js";
import type { HubStore } from "../store/HubStore.js";
import type { RouteLogRecord, RouteLogRetention, RouteRecord } from "../store/RouteStore.js";
import { AttemptSender, type SecretResolver } from "./AttemptSender.js";
import { DeliveryQueue, RETRY_DELAYS_MS } from "./DeliveryQueue.js";
import { HttpSender } from "./HttpSender.js";
import { MqttPublisher } from "./MqttPublisher.js";
import { ProxyRequests, type ProxyTarget, type WebRequest, type WebResponse } from "./ProxyRequests.js";
import { RouteCatalogue } from "./RouteCatalogue.js";
import { RouteTargets, type RouteTargetOptions } from "./RouteTargets.js";
import { RouteTester, type SampleEvent } from "./RouteTester.js";

export { DEFAULT_TIMEOUT_MS, LOG_TEXT_BYTES } from "./AttemptSender.js";
export { RETRY_DELAYS_MS } from "./DeliveryQueue.js";
export { proxyTargetUrl, proxyUrl } from "./proxyPaths.js";
export {
  WEB_MAX_BYTES,
  WEB_TIMEOUT_MS,
  WebRequestError,
  type ProxyTarget,
  type WebRequest,
  type WebRequestErrorCode,
  type WebResponse,
} from "./ProxyRequests.js";
export { MAX_TIMEOUT_MS } from "./routeFields.js";
export type { SampleEvent } from "./RouteTester.js";

/** Route logs kept unless told otherwise: the newest 1,000 of each route, none older than 30 days. */
export const DEFAULT_LOG_RETENTION: RouteLogRetention = { keepPerRoute: 1000, maxAgeMs: 30 * 86_400_000 };

export interface RoutingOptions {
  /** Delays of the retries after a failed attempt (default RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
  /** Limits of the JSONata evaluator (transforms, proxy routes): workers, time, memory. */
  jsonata?: JsonataOptions;
  /** Which addresses routes may reach (policy, the hub's own listening addresses); default `any`. */
  targets?: RouteTargetOptions;
  /** Route logs kept (default DEFAULT_LOG_RETENTION; 0 in a field: no limit of that kind). */
  logRetention?: Partial<RouteLogRetention>;
  /** Told of each delivery attempt's log as the attempt ends (the hub's live feed). */
  onAttempt?: (log: RouteLogRecord) => void;
  /** A route's URL or header value with the project secrets it names put in (`{{secret.NAME}}`). */
  secrets?: SecretResolver;
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
 *
 * The parts, one purpose each: `RouteCatalogue` (the definitions and their checks),
 * `DeliveryQueue` (intake, the pump, retries, dead letters, group completion, resume at start),
 * `AttemptSender` (one attempt: transform, http or mqtt, its outcome), `ProxyRequests` (the
 * module's web requests through proxy routes).
 */
export class RoutingService {
  /** The route target policy in force. */
  readonly targets: RouteTargets;
  readonly #http: HttpSender;
  readonly #mqtt: MqttPublisher;
  readonly #jsonata: JsonataCache;
  readonly #unsubscribe: () => void;
  readonly #stopping = new AbortController();
  readonly #catalogue: RouteCatalogue;
  readonly #queue: DeliveryQueue;
  readonly #proxy: ProxyRequests;
  readonly #tester: RouteTester;
  /** Attempts and web requests in flight. */
  readonly #inflight = new Set<Promise<void>>();
  readonly #watchers = new Set<() => void>();
  #stopped = false;

  constructor(
    store: HubStore,
    clock: Clock,
    ids: HubIds,
    events: EventService,
    private readonly onError: (error: unknown) => void = () => undefined,
    options: RoutingOptions = {},
  ) {
    this.targets = new RouteTargets(options.targets);
    store.routes.setLogRetention({ ...DEFAULT_LOG_RETENTION, ...options.logRetention });
    this.#http = new HttpSender(clock, this.targets);
    this.#mqtt = new MqttPublisher(clock, this.targets);
    this.#jsonata = new JsonataCache(() => clock.now(), options.jsonata);
    const report = (error: unknown): void => this.#report(error);
    this.#catalogue = new RouteCatalogue(store, clock, ids, this.targets);
    const sender = new AttemptSender(
      this.#http,
      this.#mqtt,
      this.#jsonata,
      this.#stopping.signal,
      options.secrets,
    );
    const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.#queue = new DeliveryQueue(
      store,
      clock,
      this.#catalogue,
      sender,
      retryDelays,
      this.#inflight,
      report,
      options.onAttempt,
      () => this.#changed(),
    );
    this.#proxy = new ProxyRequests(
      store,
      clock,
      this.#catalogue,
      this.#http,
      this.#jsonata,
      this.#inflight,
      report,
    );
    this.#tester = new RouteTester(store, clock, ids, this.#catalogue, sender, this.#inflight, (log) => {
      options.onAttempt?.(log);
      this.#changed();
    });
    this.#unsubscribe = events.subscribeBatch((batch) => this.#queue.received(batch));
    this.#queue.start();
  }

  // --- definitions ---------------------------------------------------------------------------

  /** The project's routes, oldest first. */
  list(projectUid: string): Promise<RouteRecord[]> {
    return this.#catalogue.list(projectUid);
  }

  /** A route of the project. */
  get(projectUid: string, routeUid: string): Promise<RouteRecord | undefined> {
    return this.#catalogue.get(projectUid, routeUid);
  }

  /** Creates a route from a Create Route body (either definition's shape); refusals are ServiceErrors. */
  create(projectUid: string, body: JsonObject): Promise<RouteRecord> {
    return this.#catalogue.create(projectUid, body);
  }

  /** Applies an Update Route body; undefined when the project has no such route. */
  async update(projectUid: string, routeUid: string, body: JsonObject): Promise<RouteRecord | undefined> {
    const route = await this.#catalogue.update(projectUid, routeUid, body);
    if (route) this.#queue.pump();
    return route;
  }

  /** Deletes a route with its pending deliveries (its logs stay); false when there was none. */
  async delete(projectUid: string, routeUid: string): Promise<boolean> {
    const deleted = await this.#catalogue.delete(projectUid, routeUid);
    if (deleted) this.#queue.dropLane(routeUid);
    return deleted;
  }

  /**
   * Queues the event again for the routes named (every route whose filters take it when none
   * are): the hosted console's manual re-route (no REST operation exists for it). Resolves with
   * the routes it was queued for; undefined when the project has no such event.
   */
  reroute(projectUid: string, eventUid: string, routeUids?: string[]): Promise<string[] | undefined> {
    return this.#queue.reroute(projectUid, eventUid, routeUids);
  }

  /**
   * Sends a sample event through this route only, never storing it as an event (the hosted
   * console's route test); resolves with the attempt's log (source `test`), or undefined when the
   * project has no such route.
   */
  test(projectUid: string, routeUid: string, sample: SampleEvent): Promise<RouteLogRecord | undefined> {
    return this.#tester.test(projectUid, routeUid, sample);
  }

  // --- proxy routes ----------------------------------------------------------------------------

  /**
   * The enabled proxy route of the project with this alias, as a web request uses it; with a
   * device, undefined also when the route is limited to fleets the device is not in.
   */
  proxy(projectUid: string, alias: string, deviceUid?: string): Promise<ProxyTarget | undefined> {
    return this.#proxy.proxy(projectUid, alias, deviceUid);
  }

  /**
   * A module's web request through the proxy route named by `alias`: the route's URL with `name`
   * appended, its headers, its timeout, its JSONata (`jsonata` on a JSON request body, `jsonata_in`
   * on a JSON answer). Redirects are returned, never followed. Every request that reached the
   * network is logged (source `web proxy`); refusals and failures are WebRequestErrors.
   */
  webRequest(req: WebRequest): Promise<WebResponse> {
    return this.#proxy.webRequest(req);
  }

  // --- control ---------------------------------------------------------------------------------

  /**
   * Resolves once nothing is left to do now: every event heard has been queued and every attempt
   * that was due has ended (later ones wait for their time on the clock). On a fake clock, tests
   * advance the clock to the next due time and settle again; an attempt in flight keeps this
   * waiting until its real I/O ends, so advance the clock past a hung request's timeout first.
   */
  settle(): Promise<void> {
    return this.#queue.settle();
  }

  /**
   * Calls `listener` when a delivery attempt starts or ends and when ended attempts (their logs)
   * are written; returns a function that stops it. Tests wait on it instead of polling.
   */
  onChange(listener: () => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** Attempts and web requests in flight now. */
  inFlight(): number {
    return this.#inflight.size;
  }

  /** Deliveries waiting or in flight (queued in the store), per route UID. */
  pending(): Map<string, number> {
    return this.#queue.pending();
  }

  /**
   * Stops delivering: no more events are taken, attempts in flight are abandoned unlogged (their
   * deliveries stay queued in the store for the next start), connections are closed.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue.halt();
    this.#unsubscribe();
    this.#stopping.abort();
    this.#http.abortAll();
    // Evaluations under way fail now (their attempts see the stop and stay queued).
    const evaluator = this.#jsonata.close();
    await this.#queue.drain();
    this.#http.close();
    await this.#mqtt.close();
    await evaluator;
  }

  #changed(): void {
    for (const listener of [...this.#watchers]) {
      try {
        listener();
      } catch (error) {
        this.#report(error);
      }
    }
  }

  #report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // Reporting must not stop routing.
    }
  }
}
