import { compareVersions, historyOf, type NoteRecord } from "./NoteRecord.js";

/**
 * The merge rule both ends apply to a database note (notelib `lib/note.go`, FeedSync-style):
 *
 * - a version the stored one has already seen changes nothing (merges are idempotent, so any
 *   retransmission is harmless);
 * - a version that has seen the stored one replaces it;
 * - two versions that have not seen each other conflict: the one with more updates wins, then the
 *   newer change, then the greater endpoint ID; the loser is kept in the winner's conflicts, never
 *   dropped, and the winner's history takes in both, so both ends settle on it.
 */
export interface MergeOutcome {
  /** The version to keep (unchanged when `changed` is false). */
  readonly note: NoteRecord;
  readonly changed: boolean;
  /** The merge found the two versions in conflict. */
  readonly conflict: boolean;
}

/**
 * True when `a` descends from (has seen) version `b`: for every endpoint, `a` has seen at least
 * the changes `b` has (the histories are version vectors).
 */
export function hasSeen(a: NoteRecord, b: NoteRecord): boolean {
  const seen = historyOf(a);
  for (const [endpoint, updates] of Object.entries(historyOf(b))) {
    if ((seen[endpoint] ?? -1) < updates) return false;
  }
  return true;
}

export function mergeNote(stored: NoteRecord | undefined, incoming: NoteRecord): MergeOutcome {
  if (!stored) return { note: incoming, changed: true, conflict: false };
  if (hasSeen(stored, incoming)) return { note: stored, changed: false, conflict: false };
  if (hasSeen(incoming, stored)) return { note: incoming, changed: true, conflict: false };
  const incomingWins = compareVersions(incoming, stored) > 0;
  const winner = incomingWins ? incoming : stored;
  const loser = incomingWins ? stored : incoming;
  const history: Record<string, number> = { ...historyOf(winner) };
  for (const [endpoint, updates] of Object.entries(historyOf(loser))) {
    history[endpoint] = Math.max(history[endpoint] ?? -1, updates);
  }
  const { conflicts: loserConflicts, history: _h, ...loserVersion } = loser;
  const conflicts = dedupe([...(winner.conflicts ?? []), loserVersion, ...(loserConflicts ?? [])]);
  return { note: { ...winner, history, conflicts }, changed: true, conflict: true };
}

/**
 * A new version made at `endpoint` on top of `previous` (an update or a delete): one more update,
 * its own change in the history, and the conflicts this endpoint made resolved by it.
 */
export function nextVersion(
  previous: NoteRecord | undefined,
  endpoint: string,
  change: Omit<NoteRecord, "updates" | "endpoint" | "history" | "conflicts">,
): NoteRecord {
  const updates = previous ? previous.updates + 1 : 0;
  const history = { ...(previous ? historyOf(previous) : {}), [endpoint]: updates };
  const conflicts = (previous?.conflicts ?? []).filter((c) => c.endpoint !== endpoint);
  return withConflicts({ ...change, updates, endpoint, history }, conflicts);
}

function withConflicts(note: NoteRecord, conflicts: readonly NoteRecord[]): NoteRecord {
  const { conflicts: _c, ...rest } = note;
  return conflicts.length > 0 ? { ...rest, conflicts } : rest;
}

function dedupe(conflicts: readonly NoteRecord[]): NoteRecord[] {
  const seen = new Set<string>();
  const out: NoteRecord[] = [];
  for (const c of conflicts) {
    const key = `${c.endpoint}\u0000${c.updates}\u0000${c.when}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}
