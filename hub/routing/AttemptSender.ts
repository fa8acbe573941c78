import { isJsonObject, type JsonObject } from "../../core/json.js";
import type { JsonataCache } from "../events/JsonataCache.js";
import type { EventRecord } from "../store/records.js";
import type { RouteRecord } from "../store/RouteStore.js";
import type { HttpSender, OutboundResult } from "./HttpSender.js";
import type { MqttPublisher } from "./MqttPublisher.js";
import { deliveryUrl, headersOf, timeoutOf } from "./routeFields.js";
import { DELIVERED_TYPES } from "./routeSettings.js";
import { transformEvent, type Transformed } from "./transforms.js";

/** A route's `timeout` when unset (0): the hosted hub's rule, no connection or no answer within 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Response bytes kept in a route log's `text` (the rest is read and dropped). */
export const LOG_TEXT_BYTES = 8192;

/** What one attempt came to. */
export type Outcome =
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

/** The route log's status for an exchange that got no answer, by why. */
const FAILED_STATUS = {
  timeout: "timeout",
  connection: "connection failed",
  invalid: "invalid response",
  refused: "refused",
} as const;

/** An HTTP or MQTT exchange that got no answer; a target refused by the policy is not retried. */
function failedOutcome(reason: keyof typeof FAILED_STATUS, message: string, url: string): Outcome {
  return {
    kind: "logged",
    attn: true,
    status: FAILED_STATUS[reason],
    text: message,
    url,
    retry: reason !== "refused",
  };
}

/** What an HTTP exchange (a delivery or a proxied web request) comes to, as a route log says it. */
export function httpOutcome(result: OutboundResult, url: string): Outcome {
  switch (result.kind) {
    case "aborted":
      return result;
    case "failed":
      return failedOutcome(result.reason, result.message, url);
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

/** A text with the project secrets it names put in (the hub's Integrations.resolveSecrets). */
export type SecretResolver = (projectUid: string, text: string) => Promise<string>;

/**
 * Sends one attempt of a delivery: the event transformed by the route's `transform`, then posted
 * (http) or published (mqtt), and what came of it mapped to an Outcome. Types this simulator does
 * not deliver come to `not available`.
 */
export class AttemptSender {
  constructor(
    private readonly http: HttpSender,
    private readonly mqtt: MqttPublisher,
    private readonly jsonata: JsonataCache,
    /** Aborted when the hub stops. */
    private readonly stopping: AbortSignal,
    /** Puts project secrets into the URL and header values (the logs keep the text as written). */
    private readonly secrets: SecretResolver = async (_project, text) => text,
  ) {}

  async deliver(route: RouteRecord, event: EventRecord): Promise<Outcome> {
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
    const made = transformEvent(event, transform, this.jsonata);
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
    if (route.type === "mqtt") return this.#publish(route, body.body, timeoutMs, url);
    return this.#post(route, event, body, timeoutMs, url);
  }

  async #publish(
    route: RouteRecord,
    body: Uint8Array | string,
    timeoutMs: number,
    url: string,
  ): Promise<Outcome> {
    const result = await this.mqtt.publish(route.uid, route.settings, body, timeoutMs, this.stopping);
    if (result.kind === "aborted") return result;
    if (result.kind === "published") {
      return { kind: "logged", attn: false, status: "published", text: "", url, retry: false };
    }
    return failedOutcome(result.reason, result.message, url);
  }

  async #post(
    route: RouteRecord,
    event: EventRecord,
    body: Extract<Transformed, { kind: "send" }>,
    timeoutMs: number,
    url: string,
  ): Promise<Outcome> {
    const settings: JsonObject = route.settings;
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
    for (const [name, value] of Object.entries(headers)) {
      headers[name] = await this.secrets(route.projectUid, value);
    }
    const result = await this.http.send({
      method: "POST",
      url: await this.secrets(route.projectUid, url),
      headers,
      body: body.body,
      timeoutMs,
      maxBytes: LOG_TEXT_BYTES,
    });
    return httpOutcome(result, url);
  }
}
