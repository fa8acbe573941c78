import { isJsonObject, type JsonObject } from "../../core/json.js";
import type { RouteRecord } from "../store/RouteStore.js";
import { brokerUrl } from "./MqttPublisher.js";

/** Longest `timeout` honoured. */
export const MAX_TIMEOUT_MS = 600_000;

/** A route's `timeout` in ms, when it sets one (capped at MAX_TIMEOUT_MS). */
export function timeoutOf(settings: JsonObject): number | undefined {
  const t = settings.timeout;
  return typeof t === "number" && t > 0 ? Math.min(t * 1000, MAX_TIMEOUT_MS) : undefined;
}

/** A route's `http_headers` (the string ones). */
export function headersOf(settings: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  if (isJsonObject(settings.http_headers)) {
    for (const [name, value] of Object.entries(settings.http_headers))
      if (typeof value === "string") out[name] = value;
  }
  return out;
}

/** Where a route delivers (shown in its logs). */
export function deliveryUrl(route: RouteRecord): string {
  const settings = route.settings;
  return route.type === "mqtt"
    ? `${brokerUrl(settings)}/${String(settings.topic ?? "")}`
    : String(settings.url ?? settings.webhook_url ?? "");
}

/** A route whose transform evaluates a user's JSONata expression for each event. */
export function usesJsonata(route: RouteRecord): boolean {
  const transform = route.settings.transform;
  return isJsonObject(transform) && transform.format === "jsonata";
}

/** The URL a delivered route (http, proxy, mqtt) reaches, with the field that sets it. */
export function routeTarget(
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
