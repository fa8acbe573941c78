import type { JsonObject } from "../../core/json.js";
import type { EventRecord } from "../store/records.js";

/** The event as the API shows it, and as a route sends it untransformed. */
export function eventDocument(e: EventRecord): JsonObject {
  // Copied with Object.assign, several times faster than a spread here (a page holds up to 10,000
  // events); a document with its own `__proto__` member is spread, which keeps it a member.
  const out: JsonObject = Object.hasOwn(e.data, "__proto__") ? { ...e.data } : Object.assign({}, e.data);
  out.event = e.uid;
  out.device = e.deviceUid;
  out.file = e.file;
  out.received = e.received;
  out.when = e.whenSec;
  if (e.sessionUid) out.session = e.sessionUid;
  return out;
}
