import { writeFileSync } from "node:fs";
import type { Module } from "../firmware/Module.js";
import type { SessionOutcome } from "../firmware/sync/SyncEngine.js";
import type { SessionTrigger } from "../protocol/messages.js";

/** How a session ended: `ok`, `held` (continuous: it stays open), `link` (no coverage, no answer) or `error`. */
export type SessionResult = "ok" | "held" | "link" | "error";

/** One sync session of the module, as the timeline keeps it (times in ms of the scenario clock). */
export interface SessionEntry {
  readonly kind: "session";
  readonly start: number;
  readonly end: number;
  readonly trigger: SessionTrigger;
  readonly outcome: SessionResult;
  /** The module's error text, when it failed. */
  readonly error?: string;
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly notesUp: number;
  readonly notesDown: number;
}

/**
 * Anything else on the timeline (a penalty box, a schedule change...): a kind of its own, a start
 * and optionally an end, and a few words. Other parts of the harness add theirs with `record`.
 */
export interface OtherEntry {
  readonly kind: Exclude<string, "session">;
  readonly start: number;
  readonly end?: number;
  readonly detail?: string;
}

export type TimelineEntry = SessionEntry | OtherEntry;

/** The session entry of an outcome of the sync engine. */
export function sessionEntry(outcome: SessionOutcome): SessionEntry {
  const { traffic } = outcome;
  return {
    kind: "session",
    start: outcome.started,
    end: outcome.ended,
    trigger: outcome.why,
    outcome: outcome.ok ? (outcome.held ? "held" : "ok") : outcome.linkFailure ? "link" : "error",
    ...(outcome.ok || outcome.error === undefined ? {} : { error: outcome.error }),
    bytesUp: traffic.bytes_sent,
    bytesDown: traffic.bytes_received,
    notesUp: traffic.notes_sent,
    notesDown: traffic.notes_received,
  };
}

export function isSession(entry: TimelineEntry): entry is SessionEntry {
  return entry.kind === "session";
}

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * The module's sync timeline: every session it ran (start, trigger, duration, bytes and notes each
 * way, outcome), in the order they ended, across power cycles; other parts of the harness add
 * entries of their own kinds (`record`). Written as JSON (`toJSON`, `write(path, "json")`) or as a
 * fixed-width table (`table()`, `write(path, "table")`), times in ISO of the scenario clock.
 */
export class SyncTimeline {
  readonly #entries: TimelineEntry[] = [];
  #detach: (() => void) | undefined;

  /**
   * Follows `module`'s sync sessions (instead of the module followed so far), and the penalty
   * boxes its schedule opens after a failed session (kind `penalty`: from the failure until the
   * box opens again).
   */
  follow(module: Module): void {
    this.#detach?.();
    let lastBox = 0;
    this.#detach = module.sync.onSession((outcome) => {
      this.record(sessionEntry(outcome));
      // The schedule heard of the session first (it subscribed when the module booted).
      const box = module.schedule.boxed();
      if (!box || box.until === lastBox) return;
      lastBox = box.until;
      this.record({
        kind: "penalty",
        start: outcome.ended,
        end: box.until,
        detail: `${box.kind} failure ${box.count}`,
      });
    });
  }

  /** Stops following the module. */
  stop(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /** Adds an entry (kept in order of start time among entries recorded later). */
  record(entry: TimelineEntry): void {
    this.#entries.push(entry);
  }

  /** Every entry, in the order recorded. */
  get entries(): readonly TimelineEntry[] {
    return this.#entries;
  }

  /** The sessions only. */
  get sessions(): readonly SessionEntry[] {
    return this.#entries.filter(isSession);
  }

  /** Forgets everything recorded so far (e.g. the sessions of a scenario's set-up). */
  clear(): void {
    this.#entries.length = 0;
  }

  toJSON(): { entries: TimelineEntry[] } {
    return { entries: this.#entries.map((e) => ({ ...e })) };
  }

  /** Reads back what `toJSON` (or `write(path, "json")`) gave. */
  static fromJSON(json: string | { entries: TimelineEntry[] }): SyncTimeline {
    const parsed = typeof json === "string" ? (JSON.parse(json) as { entries: TimelineEntry[] }) : json;
    if (!parsed || !Array.isArray(parsed.entries)) throw new Error("not a sync timeline: no entries");
    const timeline = new SyncTimeline();
    for (const entry of parsed.entries) {
      if (typeof entry?.kind !== "string" || typeof entry.start !== "number")
        throw new Error(`not a timeline entry: ${JSON.stringify(entry)}`);
      timeline.record(entry);
    }
    return timeline;
  }

  /** A fixed-width table, one line per entry (a header first). */
  table(): string {
    const header = [
      "time",
      "trigger",
      "duration",
      "bytes up",
      "bytes down",
      "notes up",
      "notes down",
      "outcome",
    ];
    const rows = this.#entries.map((e) =>
      isSession(e)
        ? [
            iso(e.start),
            e.trigger,
            duration(e.end - e.start),
            String(e.bytesUp),
            String(e.bytesDown),
            String(e.notesUp),
            String(e.notesDown),
            e.error ? `${e.outcome}: ${e.error}` : e.outcome,
          ]
        : [
            iso(e.start),
            e.kind,
            e.end === undefined ? "" : duration(e.end - e.start),
            "",
            "",
            "",
            "",
            e.detail ?? "",
          ],
    );
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    // Text columns left, numbers right; the last column is not padded.
    const numeric = new Set([2, 3, 4, 5, 6]);
    const line = (cells: string[]) =>
      cells
        .map((c, i) =>
          i === cells.length - 1 ? c : numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!),
        )
        .join("  ")
        .trimEnd();
    return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
  }

  /** Writes the timeline to `path`, as JSON (default) or as the table. */
  write(path: string, format: "json" | "table" = "json"): void {
    writeFileSync(path, format === "json" ? `${JSON.stringify(this.toJSON(), null, 2)}\n` : this.table());
  }
}
