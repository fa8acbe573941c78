import { stringify } from "csv-stringify/sync";
import { isJsonObject, type JsonObject, setMember } from "../../core/json.js";
import * as errors from "../errors.js";

/**
 * `selectFields` of the Events API: which members of each event to return, and the columns of
 * its CSV. A field is a member name or a dotted path into the event (`body.temperature`,
 * `fleets.0`); the names the definition's CSV example uses for the identifiers are accepted for
 * the members they name (`eventUID` is `event`, `deviceUID` is `device`, ...).
 */
export interface SelectedField {
  /** As the caller wrote it: the CSV column's header. */
  name: string;
  /** Members from the event down (aliases resolved). */
  path: string[];
}

/** Names of identifiers (the definition's CSV example uses the first two) and the members they are. */
const ALIASES: Readonly<Record<string, string>> = {
  eventUID: "event",
  deviceUID: "device",
  sessionUID: "session",
  productUID: "product",
  projectUID: "app",
  appUID: "app",
  serialNumber: "sn",
};

const MAX_FIELDS = 200;
const MAX_FIELD_LENGTH = 256;

/**
 * The CSV columns when `selectFields` names none: the event's identity, origin and times, its best
 * location and its body (as JSON text).
 */
export const DEFAULT_CSV_FIELDS = [
  "eventUID",
  "deviceUID",
  "sn",
  "file",
  "req",
  "when",
  "received",
  "session",
  "best_location_type",
  "best_lat",
  "best_lon",
  "best_location",
  "body",
] as const;

/** The member JSON output always keeps, whatever `selectFields` names: the event's UID. */
export const ALWAYS_SELECTED = "event";

/** Parses `selectFields` (comma-separated, blanks around names ignored); 400 on a malformed one. */
export function parseSelectFields(text: string): SelectedField[] {
  const names = text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  if (names.length === 0) throw errors.queryInvalid("selectFields", "names no field");
  if (names.length > MAX_FIELDS)
    throw errors.queryInvalid("selectFields", `names more than ${MAX_FIELDS} fields`);
  return names.map((name) => {
    const path = name.split(".");
    if (name.length > MAX_FIELD_LENGTH || path.some((p) => p === "")) {
      throw errors.queryInvalid(
        "selectFields",
        `has a malformed field (a member name or dotted path, at most ${MAX_FIELD_LENGTH} characters)`,
      );
    }
    if (Object.hasOwn(ALIASES, path[0]!)) path[0] = ALIASES[path[0]!]!;
    return { name, path };
  });
}

export function defaultCsvFields(): SelectedField[] {
  return parseSelectFields(DEFAULT_CSV_FIELDS.join(","));
}

/** The value at `path` in `value`, or undefined (array elements by index). */
function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (Array.isArray(at)) {
      at = /^\d+$/.test(key) ? at[Number(key)] : undefined;
    } else if (isJsonObject(at)) {
      at = Object.hasOwn(at, key) ? at[key] : undefined;
    } else {
      return undefined;
    }
  }
  return at;
}

/** The event with only the selected members (and its UID), nested as in the event. */
export function selectMembers(event: JsonObject, fields: readonly SelectedField[]): JsonObject {
  const out: JsonObject = {};
  if (event[ALWAYS_SELECTED] !== undefined) out[ALWAYS_SELECTED] = event[ALWAYS_SELECTED];
  // Objects made here for dotted paths; anything else in `out` is the event's own (never changed).
  const made = new WeakSet<object>([out]);
  for (const field of fields) {
    const value = valueAt(event, field.path);
    if (value === undefined) continue;
    let into: JsonObject | undefined = out;
    for (const key of field.path.slice(0, -1)) {
      const next: unknown = Object.hasOwn(into, key) ? into[key] : undefined;
      if (next === undefined) {
        const child: JsonObject = {};
        made.add(child);
        setMember(into, key, child);
        into = child;
      } else if (isJsonObject(next) && made.has(next)) {
        into = next;
      } else {
        into = undefined; // the whole member is already there
        break;
      }
    }
    if (!into) continue;
    const last = field.path[field.path.length - 1]!;
    const there: unknown = Object.hasOwn(into, last) ? into[last] : undefined;
    // A whole member selected as well as a part of it is returned whole.
    if (there === undefined || (isJsonObject(there) && made.has(there))) setMember(into, last, value);
  }
  return out;
}

/** A CSV cell: text as is, numbers and booleans as JSON writes them, objects and arrays as JSON, nothing as empty. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The events as CSV (RFC 4180, through csv-stringify): a header row of the field names, then one row per event. */
export function eventsCsv(events: readonly JsonObject[], fields: readonly SelectedField[]): string {
  const rows = [fields.map((f) => f.name), ...events.map((e) => fields.map((f) => cell(valueAt(e, f.path))))];
  return stringify(rows);
}
