import type { SingleBar } from "cli-progress";
import type { FleetProgress } from "../runtime/fleet/Fleet.js";
import type { FleetSession, FleetSummary } from "../runtime/fleet/FleetStats.js";

// What `cardsim fleet` shows: a progress bar on a terminal, the summary, timelines.

/** A progress bar on stderr while the fleet runs, when stderr is a terminal (nothing otherwise). */
export function fleetProgressBar(
  durationMs: number,
): { update(p: FleetProgress): void; stop(): void } | undefined {
  if (!process.stderr.isTTY) return undefined;
  // Loaded only on a terminal.
  let bar: SingleBar | undefined;
  const pending = import("cli-progress").then(({ default: progress }) => {
    bar = new progress.SingleBar(
      {
        format: "fleet |{bar}| {percentage}% of {total_time} · {sessions} sessions, {failed} failed",
        stream: process.stderr,
        hideCursor: true,
      },
      progress.Presets.shades_classic,
    );
    bar.start(durationMs, 0, { total_time: hours(durationMs), sessions: 0, failed: 0 });
  });
  return {
    update(p) {
      bar?.update(p.simulatedMs, { sessions: p.sessions, failed: p.failed });
    },
    stop() {
      void pending.then(() => bar?.stop());
    },
  };
}

function hours(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${Math.round(ms / 60_000)}min`;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The summary as lines for a person. */
export function describeSummary(s: FleetSummary, workload: string, where: string): string {
  const errors = Object.entries(s.errors)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  const { hubMs, wallMs } = s.latency;
  return [
    `cardsim fleet: ${s.modules} modules ran ${hours(s.simulatedMs)} of workload ${workload} with ${where} in ${(s.wallMs / 1000).toFixed(1)} s`,
    `  sessions  ${s.sessions.ok} ok, ${s.sessions.failed} failed (${s.sessions.perWallSecond} a wall second)`,
    `  notes     ${s.notes.added} added, ${s.notes.up} up, ${s.notes.down} down`,
    `  events    ${s.events ? `${s.events.total} (${s.events.notes} from notes)` : "not counted (the hub is elsewhere: ask its API)"}`,
    `  errors    ${errors || "none"}`,
    `  latency   hub time p50 ${hubMs.p50} ms, p99 ${hubMs.p99} ms; wall time p50 ${wallMs.p50} ms, p99 ${wallMs.p99} ms`,
    `  penalty   ${s.penaltyBoxes} modules in a penalty box at the end`,
    `  memory    ${mb(s.rssBytes)} resident${s.modules >= 100 ? ` (${(s.rssBytes / 1024 / s.modules).toFixed(1)} KiB a module, the hub and the code included)` : ""}`,
    "",
  ].join("\n");
}

/** A device's sessions, a line each (or why there are none). */
export function describeTimeline(
  device: string,
  timelines: Readonly<Record<string, readonly FleetSession[]>>,
): string {
  const sessions = timelines[device];
  if (!sessions) return `timeline of ${device}: not a device of this fleet (or of this shard)\n`;
  const lines = sessions.map(
    (t) =>
      `  ${t.started} ${t.why.padEnd(9)} ${t.ok ? "ok    " : "failed"} ${String(t.ms).padStart(6)} ms  up ${t.notesUp} notes (${t.bytesUp} B), down ${t.notesDown} notes (${t.bytesDown} B)${t.error ? `  ${t.error}` : ""}`,
  );
  return [`timeline of ${device}: ${sessions.length} sessions`, ...lines, ""].join("\n");
}
