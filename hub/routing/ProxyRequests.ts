import type { Clock } from "../../core/Clock.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { JsonataError, type JsonataCache } from "../events/JsonataCache.js";
import type { HubStore } from "../store/HubStore.js";
import type { RouteLogRecord } from "../store/RouteStore.js";
import { httpOutcome, LOG_TEXT_BYTES } from "./AttemptSender.js";
import { headerMap, type HttpSender, type OutboundResult } from "./HttpSender.js";
import { proxyTargetUrl } from "./proxyPaths.js";
import type { RouteCatalogue } from "./RouteCatalogue.js";
import { routeFleets, routeTakesDevice } from "./routeFilter.js";
import { headersOf, timeoutOf } from "./routeFields.js";

/** A proxied web request's timeout when neither the route nor the caller gives one (web.* `seconds`). */
export const WEB_TIMEOUT_MS = 90_000;
/** Response bytes a proxied web request returns unless the caller asks for another limit. */
export const WEB_MAX_BYTES = 1024 * 1024;

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

const decoder = new TextDecoder();

/** A route log of a web request (source `web proxy`): who asked, and what came of it. */
type WebLog = Pick<RouteLogRecord, "dateMs" | "durationMs" | "attn" | "status" | "text" | "url">;

/**
 * The module's web requests through the project's proxy routes: the route found by alias (and
 * fleet), the request's URL kept under the route's, its JSONata both ways, every request that
 * reached the network logged for the route.
 */
export class ProxyRequests {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly catalogue: RouteCatalogue,
    private readonly http: HttpSender,
    private readonly jsonata: JsonataCache,
    /** Attempts and web requests in flight (shared with the delivery queue). */
    private readonly inflight: Set<Promise<void>>,
    private readonly report: (error: unknown) => void,
  ) {}

  /** See RoutingService.proxy. */
  async proxy(projectUid: string, alias: string, deviceUid?: string): Promise<ProxyTarget | undefined> {
    const route = (await this.catalogue.routesOf(projectUid)).find(
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

  /** See RoutingService.webRequest. */
  async webRequest(req: WebRequest): Promise<WebResponse> {
    const target = await this.proxy(req.projectUid, req.alias, req.deviceUid);
    if (!target) {
      throw new WebRequestError("no-route", `no proxy route with alias ${req.alias} serves ${req.deviceUid}`);
    }
    const url = proxyTargetUrl(target.url, req.name ?? "");
    if (url === undefined) {
      const text = `name ${JSON.stringify(req.name ?? "")} leaves the route's URL ${target.url}: not sent`;
      const at = this.clock.now();
      await this.#log(req, target.routeUid, {
        dateMs: at,
        durationMs: 0,
        attn: true,
        status: "refused",
        text,
        url: target.url,
      });
      throw new WebRequestError("no-route", `proxy route ${req.alias}: ${text}`);
    }
    const contentType = req.contentType ?? "application/json";
    let body = req.body ?? null;
    const outgoing = typeof target.transform.jsonata === "string" ? target.transform.jsonata : "";
    if (body && outgoing.trim() !== "" && /json/i.test(contentType)) {
      body = await this.#reshape(outgoing, body, req, target.routeUid, url);
    }
    const result = await this.#exchange(req, target, url, body, contentType);
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

  /** The request sent (tracked as in flight) and logged; a stop while it is under way throws. */
  async #exchange(
    req: WebRequest,
    target: ProxyTarget,
    url: string,
    body: Uint8Array | null,
    contentType: string,
  ): Promise<OutboundResult> {
    const headers: Record<string, string> = { ...target.headers };
    if (body) headers["Content-Type"] = contentType;
    Object.assign(headers, req.headers ?? {});
    const timeoutMs = Math.min(target.timeoutMs ?? Infinity, req.timeoutMs ?? WEB_TIMEOUT_MS);
    const started = this.clock.now();
    const work = this.http.send({
      method: (req.method ?? "POST").toUpperCase(),
      url,
      headers,
      body,
      timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : WEB_TIMEOUT_MS,
      maxBytes: req.maxBytes ?? WEB_MAX_BYTES,
    });
    const tracked = work.then(() => undefined);
    this.inflight.add(tracked);
    let result: OutboundResult;
    try {
      result = await work;
    } finally {
      this.inflight.delete(tracked);
    }
    if (result.kind === "aborted") throw new WebRequestError("unreachable", "the hub is stopping");
    const outcome = httpOutcome(result, url);
    if (outcome.kind === "logged") {
      await this.#log(req, target.routeUid, {
        dateMs: started,
        durationMs: this.clock.now() - started,
        attn: outcome.attn,
        status: outcome.status,
        text:
          result.kind === "response" ? decoder.decode(result.body.subarray(0, LOG_TEXT_BYTES)) : outcome.text,
        url,
      });
    }
    return result;
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
      const { value, json } = await this.jsonata.evaluate(source, input);
      return new TextEncoder().encode(typeof value === "string" ? value : (json ?? "null"));
    } catch (error) {
      const limit = error instanceof JsonataError && error.limit;
      await this.#log(req, routeUid, {
        dateMs: started,
        durationMs: this.clock.now() - started,
        attn: true,
        status: limit ? "transform limit" : "transform error",
        text: (error as Error).message,
        url,
      }).catch((failure: unknown) => this.report(failure));
      throw new WebRequestError("transform", (error as Error).message);
    }
  }

  #log(req: WebRequest, routeUid: string, log: WebLog): Promise<void> {
    return this.store.routes.addLog({
      projectUid: req.projectUid,
      routeUid,
      eventUid: req.eventUid ?? "",
      deviceUid: req.deviceUid,
      file: "",
      ...log,
      source: "web proxy",
    });
  }
}
