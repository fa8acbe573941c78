import { parse as parseYaml } from "yaml";
import type { JsonObject } from "../../core/json.js";
import { resolveVariant } from "../../firmware/Variant.js";
import { parseDuration, parseLinearDischarge } from "../DischargeCurve.js";
import { describeSchemaError, validateWorkload } from "./workloadSchema.js";

/** A time in a workload file: `15m`, `2h`, `1d`, or a number of seconds. */
export type WorkloadDuration = string | number;

/** Notes a group's modules add to one notefile, one every `every`. */
export interface NotefileLoad {
  readonly file: string;
  readonly every: WorkloadDuration;
  /** The note's body: values as they are, or generators (`{"$random": [18, 25]}`: see bodies.ts). */
  readonly body?: JsonObject;
  /** Pads the body (a `pad` field) to this many bytes of JSON. */
  readonly bytes?: number;
  /** A `note.template` for the notefile, set at start (its notes then travel compact). */
  readonly template?: JsonObject;
  /** Add the notes with `sync:true` (a session at once, where the mode allows). */
  readonly sync?: boolean;
}

/** Environment variables set on the hub at `at` (the project's, or each device's of the group). */
export interface EnvironmentChange {
  readonly at: WorkloadDuration;
  readonly scope?: "project" | "device";
  readonly vars: Readonly<Record<string, string>>;
}

/** A host firmware image of `bytes` uploaded at `at`, and an update requested for a share of the group. */
export interface DfuCampaign {
  readonly at: WorkloadDuration;
  readonly bytes: number;
  readonly version: string;
  readonly share?: number;
}

/** The network (no registration) or the hub (unreachable) lost for `for`, by a share of the group. */
export interface Outage {
  readonly kind: "network" | "hub";
  readonly at: WorkloadDuration;
  readonly for: WorkloadDuration;
  readonly share?: number;
}

export interface GroupLoad {
  readonly name: string;
  /** The group's weight among the groups (default 1): modules are split in proportion. */
  readonly share?: number;
  /** A variant name or SKU (`cell`, `NOTE-WBEX`, `+xp` for extended power). */
  readonly variant?: string;
  /** `hub.set mode outbound inbound`, sent by each module at its start. */
  readonly sync?: {
    readonly mode: "periodic" | "minimum" | "continuous" | "off";
    readonly outbound?: number;
    readonly inbound?: number;
  };
  readonly notefiles?: readonly NotefileLoad[];
  readonly environment?: readonly EnvironmentChange[];
  readonly dfu?: DfuCampaign;
  readonly outages?: readonly Outage[];
  readonly supply?: { readonly source?: "battery" | "usb" | "line"; readonly volts?: number };
  /** `linear:FROM-TO/DURATION` played on each module's supply. */
  readonly discharge?: string;
  /** Each module at a seeded point in `area` (a circle), or travelling `track` (a GPX, NMEA or CSV file). */
  readonly location?: {
    readonly area?: { readonly lat: number; readonly lon: number; readonly radius_km: number };
    readonly track?: string;
  };
}

export interface Workload {
  readonly name?: string;
  /** Seeds the bodies, offsets and positions (and, with the shard, the fleet's identities). */
  readonly seed?: string | number;
  readonly groups: readonly GroupLoad[];
}

/** A workload file that cannot be used: the message names the file and the field. */
export class WorkloadError extends Error {
  override readonly name = "WorkloadError";
}

/**
 * Workload W: every module adds a 100-byte note to `sensors.qo` every 15 minutes and syncs on its
 * own periodic schedule, outbound every 60 minutes and inbound every 240.
 */
export const SENSORS_WORKLOAD: Workload = {
  name: "sensors",
  seed: "sensors",
  groups: [
    {
      name: "sensors",
      variant: "cell",
      sync: { mode: "periodic", outbound: 60, inbound: 240 },
      notefiles: [
        {
          file: "sensors.qo",
          every: "15m",
          body: { temp: { $random: [18, 26] }, humidity: { $int: [30, 70] }, seq: { $seq: 1 } },
          bytes: 100,
        },
      ],
    },
  ],
};

export const BUILT_IN_WORKLOADS: Readonly<Record<string, Workload>> = { sensors: SENSORS_WORKLOAD };

/** The text of a workload file (YAML, of which JSON is a part) checked and read; `source` names it in errors. */
export function parseWorkload(text: string, source = "workload"): Workload {
  let value: unknown;
  try {
    value = parseYaml(text, { prettyErrors: false });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0];
    throw new WorkloadError(`${source}: not YAML or JSON: ${message}`);
  }
  return checkWorkload(value, source);
}

/** A workload given as a value: checked against the schema, then its times, variants and discharges. */
export function checkWorkload(value: unknown, source = "workload"): Workload {
  if (!validateWorkload(value)) {
    throw new WorkloadError(`${source}: ${describeSchemaError(validateWorkload.errors![0]!)}`);
  }
  const workload = value as unknown as Workload;
  const fail = (at: string, message: string) => new WorkloadError(`${source}: ${at}: ${message}`);
  const names = new Set<string>();
  for (const [g, group] of workload.groups.entries()) {
    const at = `groups[${g}]`;
    if (names.has(group.name)) throw fail(`${at}.name`, `"${group.name}" names two groups`);
    names.add(group.name);
    if (group.variant !== undefined && !resolveVariant(group.variant))
      throw fail(
        `${at}.variant`,
        `unknown module "${group.variant}" (a variant name such as cell or wifi, or a SKU)`,
      );
    const checkTime = (path: string, time: WorkloadDuration, positive: boolean) => {
      const ms = durationMs(time);
      if (!Number.isFinite(ms) || (positive && ms <= 0))
        throw fail(path, "must be a time above 0, such as 15m");
    };
    for (const [i, n] of (group.notefiles ?? []).entries())
      checkTime(`${at}.notefiles[${i}].every`, n.every, true);
    for (const [i, e] of (group.environment ?? []).entries())
      checkTime(`${at}.environment[${i}].at`, e.at, false);
    for (const [i, o] of (group.outages ?? []).entries()) {
      checkTime(`${at}.outages[${i}].at`, o.at, false);
      checkTime(`${at}.outages[${i}].for`, o.for, true);
    }
    if (group.dfu) checkTime(`${at}.dfu.at`, group.dfu.at, false);
    if (group.discharge !== undefined) {
      try {
        parseLinearDischarge(group.discharge);
      } catch (error) {
        throw fail(`${at}.discharge`, (error as Error).message);
      }
    }
  }
  return workload;
}

/** A workload time in milliseconds (a bare number is seconds). */
export function durationMs(time: WorkloadDuration): number {
  return typeof time === "number" ? time * 1000 : parseDuration(time);
}
