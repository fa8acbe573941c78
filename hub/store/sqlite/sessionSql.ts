// The SQL of a device's sessions and its health log.

/** uid, device, project, began, ended, first sync, data: a session stored again takes its end and document. */
export const UPSERT_SESSION = `INSERT INTO sessions (uid, device_uid, project_uid, began, ended, first_sync, data) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (uid) DO UPDATE SET ended = excluded.ended, data = excluded.data`;

/** project, device, from, to (began, both included), first sync only (0 or 1), limit, offset */
export const LIST_SESSIONS = `SELECT * FROM sessions WHERE project_uid = ? AND device_uid = ? AND began >= ? AND began <= ?
        AND (first_sync = 1 OR ? = 0)
       ORDER BY began DESC, uid LIMIT ? OFFSET ?`;

/** project, device, when, alert, text, type */
export const INSERT_HEALTH_LOG =
  "INSERT INTO health_log (project_uid, device_uid, when_sec, alert, text, type) VALUES (?, ?, ?, ?, ?, ?)";

/** project, device, from, to (both included), then each of `types` (none: every type); newest first. */
export const listHealthLog = (types: readonly string[] | null): string =>
  `SELECT when_sec, alert, text, type FROM health_log
       WHERE project_uid = ? AND device_uid = ? AND when_sec >= ? AND when_sec <= ?
       ${types ? `AND type IN (${types.map(() => "?").join(", ")})` : ""}
       ORDER BY when_sec DESC, id DESC`;
