import type { SessionOutcome } from "../../firmware/sync/syncTypes.js";
import type { HubLinkFailure } from "../../firmware/radio/HubLink.js";

/** One session of a module, as a fleet's timeline gives it. */
export interface FleetSession {
  readonly device: string;
  readonly why: string;
  /** ISO time (the fleet's clock) the session started, and how long it took on that clock. */
  readonly started: string;
  readonly ms: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly notesUp: number;
  readonly notesDown: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
}

export interface LatencySummary {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** What a fleet run did (`cardsim fleet --json` prints it as it is). */
export interface FleetSummary {
  readonly modules: number;
  /** The fleet's clock time simulated, in ms, and the wall time it took. */
  readonly simulatedMs: number;
  readonly wallMs: number;
  readonly sessions: { readonly ok: number; readonly failed: number; readonly perWallSecond: number };
  readonly notes: { readonly added: number; readonly up: number; readonly down: number };
  /** Events the hub stored for the fleet's devices (null: the hub is elsewhere and was not asked). */
  readonly events: { readonly total: number; readonly notes: number } | null;
  /** Failed sessions and refused requests by their `{tag}` (`link` when the link failed). */
  readonly errors: Readonly<Record<string, number>>;
  /** Session latency in ms on the fleet's (hub's) clock and on the wall clock. */
  readonly latency: { readonly hubMs: LatencySummary; readonly wallMs: LatencySummary };
  /** Modules in a penalty box when the run ended. */
  readonly penaltyBoxes: number;
  readonly rssBytes: number;
}

/** The part of a summary one fleet (or one worker's part of it) collects, merged by `mergeStats`. */
export interface FleetCounts {
  modules: number;
  ok: number;
  failed: number;
  notesAdded: number;
  notesUp: number;
  notesDown: number;
  events: number;
  noteEvents: number;
  errors: Record<string, number>;
  hubMs: number[];
  wallMs: number[];
  penaltyBoxes: number;
}

export function emptyCounts(): FleetCounts {
  return {
    modules: 0,
    ok: 0,
    failed: 0,
    notesAdded: 0,
    notesUp: 0,
    notesDown: 0,
    events: 0,
    noteEvents: 0,
    errors: {},
    hubMs: [],
    wallMs: [],
    penaltyBoxes: 0,
  };
}

/**
 * The kind of a failure: its first `{tag}` (with the link's failure after a colon when a
 * `{sync-error}` names one: `sync-error:timeout`, `sync-error:dropped`), `link` for a link that
 * failed, else `other`.
 */
export function errorKind(error: string | undefined, linkFailure?: boolean): string {
  const tags = error ? Array.from(error.matchAll(/\{([a-z0-9-]+)\}/gi), (match) => match[1]!) : [];
  const [first, second] = tags;
  if (first === "sync-error" && second !== undefined && LINK_FAILURES.has(second))
    return `${first}:${second}`;
  if (first !== undefined) return first;
  return linkFailure ? "link" : "other";
}

/** The tags a module's status gives a failed exchange with the hub (firmware/radio/HubLink.ts). */
const LINK_FAILURES = new Set<string>(["unreachable", "dropped", "timeout"] satisfies HubLinkFailure[]);

/** Counts a session's outcome; `wallMs` is how long it took on the wall clock, when known. */
export function countSession(counts: FleetCounts, outcome: SessionOutcome, wallMs: number | undefined): void {
  if (outcome.ok) counts.ok++;
  else {
    counts.failed++;
    const kind = errorKind(
      outcome.error,
      outcome.linkFailure === true || outcome.connectFailure !== undefined,
    );
    counts.errors[kind] = (counts.errors[kind] ?? 0) + 1;
  }
  counts.notesUp += outcome.traffic.notes_sent;
  counts.notesDown += outcome.traffic.notes_received;
  counts.hubMs.push(outcome.ended - outcome.started);
  if (wallMs !== undefined) counts.wallMs.push(wallMs);
}

export function countError(counts: FleetCounts, kind: string): void {
  counts.errors[kind] = (counts.errors[kind] ?? 0) + 1;
}

/** Adds `part` (a worker's counts) into `into`. */
export function mergeCounts(into: FleetCounts, part: FleetCounts): FleetCounts {
  for (const key of [
    "modules",
    "ok",
    "failed",
    "notesAdded",
    "notesUp",
    "notesDown",
    "events",
    "noteEvents",
    "penaltyBoxes",
  ] as const)
    into[key] += part[key];
  for (const [kind, n] of Object.entries(part.errors)) into.errors[kind] = (into.errors[kind] ?? 0) + n;
  for (const ms of part.hubMs) into.hubMs.push(ms);
  for (const ms of part.wallMs) into.wallMs.push(ms);
  return into;
}

function latency(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted[sorted.length - 1]!) };
}

export function summarize(
  counts: FleetCounts,
  run: { simulatedMs: number; wallMs: number; eventsCounted: boolean; rssBytes: number },
): FleetSummary {
  return {
    modules: counts.modules,
    simulatedMs: run.simulatedMs,
    wallMs: Math.round(run.wallMs),
    sessions: {
      ok: counts.ok,
      failed: counts.failed,
      perWallSecond: Math.round(((counts.ok + counts.failed) / Math.max(run.wallMs, 1)) * 1000 * 10) / 10,
    },
    notes: { added: counts.notesAdded, up: counts.notesUp, down: counts.notesDown },
    events: run.eventsCounted ? { total: counts.events, notes: counts.noteEvents } : null,
    errors: { ...counts.errors },
    latency: { hubMs: latency(counts.hubMs), wallMs: latency(counts.wallMs) },
    penaltyBoxes: counts.penaltyBoxes,
    rssBytes: run.rssBytes,
  };
}

/** A session of `device` as a timeline entry. */
export function timelineEntry(device: string, outcome: SessionOutcome): FleetSession {
  return {
    device,
    why: outcome.why,
    started: new Date(outcome.started).toISOString(),
    ms: outcome.ended - outcome.started,
    ok: outcome.ok,
    ...(outcome.error ? { error: outcome.error } : {}),
    notesUp: outcome.traffic.notes_sent,
    notesDown: outcome.traffic.notes_received,
    bytesUp: outcome.traffic.bytes_sent,
    bytesDown: outcome.traffic.bytes_received,
  };
}
