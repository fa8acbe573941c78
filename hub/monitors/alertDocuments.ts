import type { JsonObject } from "../../core/json.js";
import type { MonitorRecord } from "../store/AutomationStore.js";
import type { MonitorRules } from "./monitorRules.js";

/** What set an alert off: the value, the event it came from and when. */
export interface Trigger {
  value: number;
  eventUid: string;
  deviceUid: string;
  /** Epoch ms on the hub clock. */
  at: number;
}

/**
 * One notification of an alert as the Alert definition records it. Nothing leaves the hub: e-mail
 * and Slack need services outside it, so each is recorded here, in the alert, as delivered
 * (`status` 200), which is the log GetAlerts reads (docs/differences.md).
 */
export function notificationsOf(monitor: MonitorRecord): JsonObject[] {
  const routes = Array.isArray(monitor.settings.alert_routes) ? monitor.settings.alert_routes : [];
  const out: JsonObject[] = [];
  for (const route of routes) {
    if (route === null || typeof route !== "object" || Array.isArray(route)) continue;
    const r = route as JsonObject;
    if (typeof r.email === "string") {
      out.push({ notification_type: "email", recipients: r.email, status: 200 });
    } else if (typeof r.url === "string" || typeof r.token === "string") {
      const to = typeof r.url === "string" ? r.url : typeof r.channel === "string" ? r.channel : "slack";
      out.push({ notification_type: "slack", recipients: to, status: 200 });
    }
  }
  return out;
}

/** The Alert document of a monitor that fired. */
export function firedAlert(
  uid: string,
  monitor: MonitorRecord,
  rules: MonitorRules,
  trigger: Trigger,
  perDevice: boolean,
  notifications: JsonObject[],
): JsonObject {
  const doc: JsonObject = {
    uid,
    monitor_uid: monitor.uid,
    monitor_name: typeof monitor.settings.name === "string" ? monitor.settings.name : "",
    monitor_type: rules.sourceType === "heartbeat" ? "device" : "event",
    alert_source: "device",
    field_name: rules.selector,
    value: trigger.value,
    source: trigger.eventUid,
    created_at: Math.floor(trigger.at / 1000),
    resolved: false,
    version: 1,
    data: [dataOf(trigger)],
    notifications,
  };
  if (perDevice) doc.device_uid = trigger.deviceUid;
  return doc;
}

/** The alert once its monitor's condition no longer holds: resolved, one version on. */
export function clearedAlert(
  doc: JsonObject,
  value: number | undefined,
  at: number,
  notifications: JsonObject[],
): JsonObject {
  const data = Array.isArray(doc.data) ? [...doc.data] : [];
  if (value !== undefined) {
    data.push({ alert_source: "device", source_type: "event", value, when: new Date(at).toISOString() });
  }
  const before = Array.isArray(doc.notifications) ? doc.notifications : [];
  return {
    ...doc,
    resolved: true,
    version: (typeof doc.version === "number" ? doc.version : 1) + 1,
    data,
    notifications: [...before, ...notifications],
  };
}

function dataOf(trigger: Trigger): JsonObject {
  return {
    alert_source: "device",
    source: trigger.eventUid,
    source_type: "event",
    source_uid: trigger.deviceUid,
    value: trigger.value,
    when: new Date(trigger.at).toISOString(),
  };
}
