import type pg from "pg";
import { AUTOMATION_TABLES } from "../AutomationSql.js";

/**
 * The PostgreSQL schema, migration by migration; `schema_version` records how many ran. Never edit
 * a released migration: append a new one. (Column names and kinds match the SQLite schema's, so
 * both backends share the rows' mapping: times are BIGINT epoch values, flags 0/1 integers, JSON
 * documents text read back through `storedJson`.)
 */
/**
 * Text compares and sorts byte by byte, as in SQLite (and whatever the database's locale): every
 * TEXT column of a migration is declared COLLATE "C" through this.
 */
const bytewise = (sql: string): string => sql.replace(/ TEXT\b/g, ' TEXT COLLATE "C"');

export const pgMigrations: readonly string[] = [
  // 1: the schema of SQLite's migrations 1 to 8.
  bytewise(`
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE users (
    uid TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    staff INTEGER NOT NULL DEFAULT 0,
    created BIGINT NOT NULL
  );
  CREATE UNIQUE INDEX users_username ON users (lower(username));

  CREATE TABLE organizations (
    uid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    owner_uid TEXT NOT NULL REFERENCES users(uid),
    email TEXT NOT NULL,
    contact_uid TEXT NOT NULL,
    suspended INTEGER NOT NULL DEFAULT 0,
    plan_type TEXT NOT NULL,
    event_capacity BIGINT NOT NULL,
    plan_start BIGINT NOT NULL,
    plan_end BIGINT,
    created BIGINT NOT NULL
  );

  CREATE TABLE org_members (
    org_uid TEXT NOT NULL REFERENCES organizations(uid) ON DELETE CASCADE,
    user_uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    role TEXT NOT NULL,
    PRIMARY KEY (org_uid, user_uid)
  );

  CREATE TABLE projects (
    uid TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    org_uid TEXT NOT NULL REFERENCES organizations(uid),
    created BIGINT NOT NULL,
    admin_contact TEXT,
    tech_contact TEXT
  );

  CREATE TABLE project_members (
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    user_uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    role TEXT NOT NULL,
    PRIMARY KEY (project_uid, user_uid)
  );
  CREATE INDEX project_members_user ON project_members(user_uid);

  CREATE TABLE products (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    label TEXT NOT NULL,
    disable_devices_by_default INTEGER NOT NULL DEFAULT 0,
    auto_provision_fleets TEXT,
    created BIGINT NOT NULL
  );
  CREATE INDEX products_project ON products(project_uid);

  CREATE TABLE fleets (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created BIGINT NOT NULL,
    smart_rule TEXT,
    smart_rule_enabled INTEGER NOT NULL DEFAULT 0,
    watchdog_mins INTEGER NOT NULL DEFAULT 0,
    connectivity_assurance INTEGER
  );
  CREATE INDEX fleets_project ON fleets(project_uid);

  CREATE TABLE devices (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid),
    product_uid TEXT NOT NULL,
    serial_number TEXT,
    provisioned BIGINT NOT NULL,
    last_activity BIGINT,
    disabled INTEGER NOT NULL DEFAULT 0,
    sku TEXT,
    firmware_module TEXT,
    firmware_module_version TEXT,
    firmware_host TEXT,
    voltage DOUBLE PRECISION NOT NULL DEFAULT 0,
    temperature DOUBLE PRECISION NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    details TEXT NOT NULL DEFAULT '{}',
    location_text TEXT NOT NULL DEFAULT '',
    public_key TEXT,
    connected INTEGER NOT NULL DEFAULT 0,
    connectivity_assurance INTEGER NOT NULL DEFAULT 0,
    notebox_next_change BIGINT NOT NULL DEFAULT 1,
    doc TEXT NOT NULL DEFAULT '{}',
    tracker_session TEXT
  );
  CREATE INDEX devices_project ON devices(project_uid, uid);
  CREATE INDEX devices_serial ON devices(project_uid, serial_number);

  CREATE TABLE device_tags (
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (device_uid, tag)
  );
  CREATE INDEX device_tags_tag ON device_tags(tag);

  CREATE TABLE device_fleets (
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    fleet_uid TEXT NOT NULL REFERENCES fleets(uid) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, fleet_uid)
  );
  CREATE INDEX device_fleets_fleet ON device_fleets(fleet_uid, device_uid);

  CREATE TABLE env_vars (
    scope TEXT NOT NULL,
    owner_uid TEXT NOT NULL,
    project_uid TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    modified BIGINT NOT NULL,
    PRIMARY KEY (scope, owner_uid, key)
  );
  CREATE INDEX env_vars_project ON env_vars(project_uid);

  CREATE TABLE signals (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    body TEXT NOT NULL,
    created BIGINT NOT NULL
  );
  CREATE INDEX signals_device ON signals(device_uid, seq);

  CREATE TABLE notefiles (
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    file_id TEXT NOT NULL,
    next_change BIGINT NOT NULL DEFAULT 1,
    deleted INTEGER NOT NULL DEFAULT 0,
    box_change BIGINT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL,
    PRIMARY KEY (device_uid, file_id)
  );

  CREATE TABLE notes (
    device_uid TEXT NOT NULL,
    file_id TEXT NOT NULL,
    note_id TEXT NOT NULL,
    body TEXT,
    payload TEXT,
    time_sec BIGINT NOT NULL,
    change BIGINT NOT NULL,
    updates BIGINT NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    endpoint TEXT NOT NULL,
    history TEXT,
    conflicts TEXT,
    place TEXT,
    arrived INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (device_uid, file_id, note_id),
    FOREIGN KEY (device_uid, file_id) REFERENCES notefiles(device_uid, file_id) ON DELETE CASCADE
  );
  CREATE INDEX notes_change ON notes(device_uid, file_id, change);

  CREATE TABLE trackers (
    device_uid TEXT NOT NULL,
    file_id TEXT NOT NULL,
    tracker_id TEXT NOT NULL,
    change BIGINT NOT NULL,
    PRIMARY KEY (device_uid, file_id, tracker_id),
    FOREIGN KEY (device_uid, file_id) REFERENCES notefiles(device_uid, file_id) ON DELETE CASCADE
  );

  CREATE TABLE sessions (
    uid TEXT PRIMARY KEY,
    device_uid TEXT NOT NULL,
    project_uid TEXT NOT NULL,
    began BIGINT NOT NULL,
    ended BIGINT,
    first_sync INTEGER NOT NULL DEFAULT 0,
    data TEXT NOT NULL
  );
  CREATE INDEX sessions_device ON sessions(project_uid, device_uid, began);
  CREATE INDEX sessions_project ON sessions(project_uid, began);

  -- seq: the order the hub stored the events in (SQLite's rowid), the events cursor's order and
  -- the last tie-breaker of every other.
  CREATE TABLE events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    session_uid TEXT,
    file TEXT NOT NULL,
    received DOUBLE PRECISION NOT NULL,
    captured BIGINT NOT NULL,
    billable INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX events_project ON events(project_uid, received, seq);
  CREATE INDEX events_arrival ON events(project_uid, seq);
  CREATE INDEX events_captured ON events(project_uid, captured, received, seq);
  CREATE INDEX events_device ON events(project_uid, device_uid, captured, received, seq);
  CREATE INDEX events_device_file ON events(project_uid, device_uid, file, received);
  CREATE INDEX events_session ON events(project_uid, session_uid);

  CREATE TABLE health_log (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    when_sec BIGINT NOT NULL,
    alert INTEGER NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL
  );
  CREATE INDEX health_log_device ON health_log(project_uid, device_uid, when_sec);
  CREATE INDEX health_log_project ON health_log(project_uid, when_sec);

  CREATE TABLE descriptions (
    name TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    content BYTEA NOT NULL,
    size BIGINT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL,
    created_by TEXT NOT NULL
  );

  CREATE TABLE access_tokens (
    uid TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    user_uid TEXT REFERENCES users(uid) ON DELETE CASCADE,
    client_id TEXT,
    project_uid TEXT,
    role TEXT,
    scope TEXT,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    created BIGINT NOT NULL,
    expires BIGINT,
    suspended INTEGER NOT NULL DEFAULT 0,
    last_used BIGINT
  );
  CREATE INDEX access_tokens_kind ON access_tokens(kind, created);

  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    role TEXT NOT NULL,
    name TEXT NOT NULL,
    created BIGINT NOT NULL,
    created_by TEXT NOT NULL
  );

  CREATE TABLE routes (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    label TEXT NOT NULL,
    type TEXT NOT NULL,
    schema TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    settings TEXT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL
  );
  CREATE INDEX routes_project ON routes(project_uid, created);

  CREATE TABLE route_queue (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    route_uid TEXT NOT NULL REFERENCES routes(uid) ON DELETE CASCADE,
    project_uid TEXT NOT NULL,
    event_uid TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    due BIGINT NOT NULL,
    source TEXT NOT NULL,
    begun INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE route_logs (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_uid TEXT NOT NULL,
    route_uid TEXT NOT NULL,
    event_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    file TEXT NOT NULL,
    date BIGINT NOT NULL,
    duration BIGINT NOT NULL,
    attn INTEGER NOT NULL,
    status TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT NOT NULL,
    source TEXT NOT NULL
  );
  CREATE INDEX route_logs_route ON route_logs(route_uid, date);
  CREATE INDEX route_logs_event ON route_logs(event_uid);
  CREATE INDEX route_logs_date ON route_logs(date);

  CREATE TABLE firmware (
    project_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    source TEXT NOT NULL,
    length BIGINT NOT NULL,
    md5 TEXT NOT NULL,
    crc32 BIGINT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL,
    version TEXT,
    notes TEXT,
    info TEXT,
    image TEXT,
    target TEXT,
    published INTEGER NOT NULL DEFAULT 1,
    created_by TEXT,
    PRIMARY KEY (project_uid, type, filename)
  );

  CREATE TABLE firmware_chunks (
    project_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (project_uid, type, filename, seq)
  );

  CREATE TABLE dfu_requests (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    initiated BIGINT NOT NULL,
    current_version TEXT,
    requested_version TEXT,
    state TEXT NOT NULL,
    updates TEXT NOT NULL DEFAULT '[]',
    source TEXT NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX dfu_requests_device ON dfu_requests(project_uid, device_uid, type, id);

  -- A stored document (text) as JSON to read members from; '{}' when it is not a JSON object,
  -- so that no damaged row makes a read fail (docs/hub.md, "Stored JSON").
  CREATE FUNCTION hub_doc(text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
  DECLARE parsed jsonb;
  BEGIN
    parsed := $1::jsonb;
    IF jsonb_typeof(parsed) = 'object' THEN RETURN parsed; END IF;
    RETURN '{}'::jsonb;
  EXCEPTION WHEN others THEN
    RETURN '{}'::jsonb;
  END $$;
  `),
  // 2: monitors with their alerts, batch jobs with their runs (SQLite's migration 9).
  bytewise(AUTOMATION_TABLES),
  // 3: several hub processes over one database (docs/hub.md, "Several hub processes"): the open
  // sync sessions, the challenges spent, the processes alive, and which process makes a delivery.
  bytewise(`
  CREATE TABLE sync_sessions (
    token TEXT PRIMARY KEY,
    device_uid TEXT NOT NULL,
    last_seen BIGINT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX sync_sessions_device ON sync_sessions(device_uid);
  CREATE INDEX sync_sessions_seen ON sync_sessions(last_seen);

  CREATE TABLE spent_challenges (challenge TEXT PRIMARY KEY, expires BIGINT NOT NULL);

  CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, at BIGINT NOT NULL);

  CREATE TABLE hub_nodes (node TEXT PRIMARY KEY, seen BIGINT NOT NULL, listening INTEGER NOT NULL DEFAULT 0);

  ALTER TABLE route_queue ADD COLUMN owner TEXT;
  `),
  // 4: webhooks (named inlets for outside services' events), project secrets (ciphertext
  // only: the key is in the hub's directory) and global event transformations. New tables only.
  bytewise(`
  CREATE TABLE IF NOT EXISTS webhooks (
    project_uid TEXT NOT NULL,
    id TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    transform TEXT NOT NULL DEFAULT '',
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL,
    PRIMARY KEY (project_uid, id)
  );

  CREATE TABLE IF NOT EXISTS project_secrets (
    project_uid TEXT NOT NULL,
    name TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    created BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    modified BIGINT,
    modified_by TEXT,
    PRIMARY KEY (project_uid, name)
  );

  CREATE TABLE IF NOT EXISTS global_transforms (
    project_uid TEXT PRIMARY KEY,
    transform TEXT NOT NULL DEFAULT '',
    enabled INTEGER NOT NULL DEFAULT 0,
    modified BIGINT NOT NULL
  );
  `),
  // 5: the limiters' states every hub process shares (hello buckets, API rate windows, sign-in and
  // PIN throttles) as texts under keys, in place of the hello buckets' own table.
  bytewise(`
  CREATE TABLE limit_states (key TEXT PRIMARY KEY, data TEXT NOT NULL, expires BIGINT NOT NULL);
  CREATE INDEX limit_states_expires ON limit_states(expires);
  DROP TABLE rate_buckets;
  `),
  // 6: one index fewer to write for every event (SQLite's migration 12): the latest events of a
  // device read each file's latest time from the device's entries of events_device.
  `
  DROP INDEX events_device_file;
  `,
];

/** Raised for a database this hub cannot use as it is (the CLI prints its message as one line). */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}

/** A lock key of the migrations: hubs starting together migrate one at a time. */
const MIGRATION_LOCK = 0x63617264;

/** Applies the migrations not yet applied, each in its own transaction; refuses a newer schema. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied BIGINT NOT NULL)",
      );
      const row = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_version");
      const version = row.rows[0]?.v ?? 0;
      if (version > pgMigrations.length) {
        throw new SchemaTooNewError(
          `hub database schema version ${version} is newer than this cardsim understands (${pgMigrations.length}); use a newer cardsim or another database`,
        );
      }
      for (let i = version; i < pgMigrations.length; i++) {
        await client.query("BEGIN");
        try {
          await client.query(pgMigrations[i]!);
          await client.query("INSERT INTO schema_version (version, applied) VALUES ($1, $2)", [
            i + 1,
            Date.now(),
          ]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}
