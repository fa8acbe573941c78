import type { JsonObject } from "../../core/json.js";

/**
 * The Monitor definition's settings as the evaluation reads them (docs/hub.md, "Monitors"): what
 * events it looks at, the value it takes from each, how values are aggregated over a window and
 * compared with the threshold.
 */
export type Aggregate = "none" | "sum" | "average" | "max" | "min";
export type Condition =
  | "greater_than"
  | "greater_than_or_equal_to"
  | "less_than"
  | "less_than_or_equal_to"
  | "equal_to"
  | "not_equal_to"
  | "count";

export const AGGREGATES: readonly Aggregate[] = ["none", "sum", "average", "max", "min"];
export const CONDITIONS: readonly Condition[] = [
  "greater_than",
  "greater_than_or_equal_to",
  "less_than",
  "less_than_or_equal_to",
  "equal_to",
  "not_equal_to",
  "count",
];

/**
 * A duration as the definition's pattern writes it: a number and one unit (`30s`, `10m`, `5h`).
 * (Its example `5h30m40s` breaks its own pattern: refused, so that what is stored is what answers.)
 */
export const DURATION = /^[0-9]+[smh]$/;

/** Milliseconds of a duration text (`DURATION`); undefined for none or a malformed one. */
export function durationMs(text: unknown): number | undefined {
  if (typeof text !== "string" || text === "" || !DURATION.test(text)) return undefined;
  const unit = text.at(-1);
  return Number(text.slice(0, -1)) * (unit === "h" ? 3_600_000 : unit === "m" ? 60_000 : 1000);
}

/** A monitor's settings, typed and with the definition's defaults. */
export interface MonitorRules {
  sourceType: "event" | "heartbeat";
  notefiles: string[];
  fleets: string[];
  selector: string;
  aggregate: Aggregate;
  condition: Condition;
  threshold: number;
  /** 0 when values are judged one by one. */
  windowMs: number;
  perDevice: boolean;
  disabled: boolean;
  silenced: boolean;
  cooldownMs: number;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

export function monitorRules(settings: JsonObject): MonitorRules {
  const aggregate = (settings.aggregate_function as Aggregate | undefined) ?? "none";
  const condition = (settings.condition_type as Condition | undefined) ?? "greater_than";
  const windowed = aggregate !== "none" || condition === "count";
  return {
    sourceType: settings.source_type === "heartbeat" ? "heartbeat" : "event",
    notefiles: strings(settings.notefile_filter),
    fleets: strings(settings.fleet_filter),
    selector: typeof settings.source_selector === "string" ? settings.source_selector : "",
    aggregate,
    condition,
    threshold: typeof settings.threshold === "number" ? settings.threshold : 0,
    windowMs: windowed ? (durationMs(settings.aggregate_window) ?? 0) : 0,
    perDevice: aggregate === "none" || settings.per_device === true,
    disabled: settings.disabled === true,
    silenced: settings.silenced === true,
    cooldownMs: durationMs(settings.routing_cooldown_period) ?? 0,
  };
}

/** The notefiles a heartbeat monitor looks at: the device's sessions and its health reports. */
export const HEARTBEAT_FILES: readonly string[] = ["_session.qo", "_health.qo"];

/**
 * Whether an event of `file` is the monitor's: a heartbeat monitor takes the heartbeat files; an
 * event monitor the notefiles it names, or, naming none, every notefile but the system ones.
 */
export function takesFile(rules: MonitorRules, file: string): boolean {
  if (rules.sourceType === "heartbeat") return HEARTBEAT_FILES.includes(file);
  if (rules.notefiles.length > 0) return rules.notefiles.includes(file);
  return !file.startsWith("_");
}

/** The aggregate of a window's values; undefined when it has none to take (an average of nothing). */
export function aggregateOf(rules: MonitorRules, values: readonly number[]): number | undefined {
  if (rules.condition === "count") return values.length;
  switch (rules.aggregate) {
    case "sum":
      return values.reduce((a, b) => a + b, 0);
    case "average":
      return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
    case "max":
      return values.length === 0 ? undefined : Math.max(...values);
    case "min":
      return values.length === 0 ? undefined : Math.min(...values);
    default:
      return values.at(-1);
  }
}

/** Whether a value meets the condition (`count`: at least `threshold` values in the window). */
export function meets(rules: MonitorRules, value: number | undefined): boolean {
  if (value === undefined) return false;
  const t = rules.threshold;
  switch (rules.condition) {
    case "greater_than":
      return value > t;
    case "greater_than_or_equal_to":
    case "count":
      return value >= t;
    case "less_than":
      return value < t;
    case "less_than_or_equal_to":
      return value <= t;
    case "equal_to":
      return value === t;
    case "not_equal_to":
      return value !== t;
  }
}
