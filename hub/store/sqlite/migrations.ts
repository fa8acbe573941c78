import { AUTOMATION_TABLES } from "../AutomationSql.js";
/**
 * Schema migrations, applied in order at open; `PRAGMA user_version` records how many ran. Never
 * edit a released migration: append a new one.
 */
export const migrations: readonly string[] = [
  // 1: accounts, projects, devices, notefiles, telemetry, credentials, descriptions.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE users (
    uid TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    staff INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
  );

  CREATE TABLE organizations (
    uid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    owner_uid TEXT NOT NULL REFERENCES users(uid),
    email TEXT NOT NULL,
    contact_uid TEXT NOT NULL,
    suspended INTEGER NOT NULL DEFAULT 0,
    plan_type TEXT NOT NULL,
    event_capacity INTEGER NOT NULL,
    plan_start INTEGER NOT NULL,
    plan_end INTEGER,
    created INTEGER NOT NULL
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
    created INTEGER NOT NULL,
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
    created INTEGER NOT NULL
  );
  CREATE INDEX products_project ON products(project_uid);

  CREATE TABLE fleets (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created INTEGER NOT NULL,
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
    provisioned INTEGER NOT NULL,
    last_activity INTEGER,
    disabled INTEGER NOT NULL DEFAULT 0,
    sku TEXT,
    firmware_module TEXT,
    firmware_module_version TEXT,
    firmware_host TEXT,
    voltage REAL NOT NULL DEFAULT 0,
    temperature REAL NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    details TEXT NOT NULL DEFAULT '{}',
    location_text TEXT NOT NULL DEFAULT '',
    public_key TEXT,
    connected INTEGER NOT NULL DEFAULT 0,
    connectivity_assurance INTEGER NOT NULL DEFAULT 0,
    notebox_next_change INTEGER NOT NULL DEFAULT 1,
    -- The whole DeviceRecord (fleets and tags included) as JSON, rewritten on every change:
    -- reads take one column instead of joining.
    doc TEXT NOT NULL DEFAULT '{}'
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
    modified INTEGER NOT NULL,
    PRIMARY KEY (scope, owner_uid, key)
  );
  CREATE INDEX env_vars_project ON env_vars(project_uid);

  CREATE TABLE signals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    body TEXT NOT NULL,
    created INTEGER NOT NULL
  );
  CREATE INDEX signals_device ON signals(device_uid, seq);

  CREATE TABLE notefiles (
    device_uid TEXT NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    file_id TEXT NOT NULL,
    next_change INTEGER NOT NULL DEFAULT 1,
    deleted INTEGER NOT NULL DEFAULT 0,
    box_change INTEGER NOT NULL,
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL,
    PRIMARY KEY (device_uid, file_id)
  );

  CREATE TABLE notes (
    device_uid TEXT NOT NULL,
    file_id TEXT NOT NULL,
    note_id TEXT NOT NULL,
    body TEXT,
    payload TEXT,
    time_sec INTEGER NOT NULL,
    change INTEGER NOT NULL,
    updates INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    endpoint TEXT NOT NULL,
    PRIMARY KEY (device_uid, file_id, note_id),
    FOREIGN KEY (device_uid, file_id) REFERENCES notefiles(device_uid, file_id) ON DELETE CASCADE
  );
  CREATE INDEX notes_change ON notes(device_uid, file_id, change);

  CREATE TABLE trackers (
    device_uid TEXT NOT NULL,
    file_id TEXT NOT NULL,
    tracker_id TEXT NOT NULL,
    change INTEGER NOT NULL,
    PRIMARY KEY (device_uid, file_id, tracker_id),
    FOREIGN KEY (device_uid, file_id) REFERENCES notefiles(device_uid, file_id) ON DELETE CASCADE
  );

  CREATE TABLE sessions (
    uid TEXT PRIMARY KEY,
    device_uid TEXT NOT NULL,
    project_uid TEXT NOT NULL,
    began INTEGER NOT NULL,
    ended INTEGER,
    first_sync INTEGER NOT NULL DEFAULT 0,
    data TEXT NOT NULL
  );
  CREATE INDEX sessions_device ON sessions(device_uid, began);

  CREATE TABLE events (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    session_uid TEXT,
    file TEXT NOT NULL,
    received REAL NOT NULL,
    captured INTEGER NOT NULL,
    billable INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX events_project ON events(project_uid, received);
  CREATE INDEX events_device_file ON events(device_uid, file, received);

  CREATE TABLE health_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    device_uid TEXT NOT NULL,
    when_sec INTEGER NOT NULL,
    alert INTEGER NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL
  );
  CREATE INDEX health_log_device ON health_log(device_uid, when_sec);

  CREATE TABLE descriptions (
    name TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    content BLOB NOT NULL,
    size INTEGER NOT NULL,
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL,
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
    created INTEGER NOT NULL,
    expires INTEGER,
    suspended INTEGER NOT NULL DEFAULT 0,
    last_used INTEGER
  );
  CREATE INDEX access_tokens_kind ON access_tokens(kind, created);

  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    role TEXT NOT NULL,
    name TEXT NOT NULL,
    created INTEGER NOT NULL,
    created_by TEXT NOT NULL
  );
  `,

  // 2: telemetry belongs to the project that owned the device, not to the DeviceUID alone (a UID
  // deleted from one project and provisioned in another must not bring its past along). Events
  // and sessions already record their project; the health log learns it here. An entry is kept
  // only when its device still exists and logged it since joining its current project: anything
  // older may be a previous life of the UID in another project, cannot be attributed, and is
  // dropped.
  `
  CREATE TABLE health_log_scoped (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    when_sec INTEGER NOT NULL,
    alert INTEGER NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL
  );
  INSERT INTO health_log_scoped (id, project_uid, device_uid, when_sec, alert, text, type)
    SELECT h.id, d.project_uid, h.device_uid, h.when_sec, h.alert, h.text, h.type
    FROM health_log h JOIN devices d ON d.uid = h.device_uid
    WHERE h.when_sec * 1000 >= d.provisioned;
  DROP TABLE health_log;
  ALTER TABLE health_log_scoped RENAME TO health_log;
  CREATE INDEX health_log_device ON health_log(project_uid, device_uid, when_sec);

  DROP INDEX sessions_device;
  CREATE INDEX sessions_device ON sessions(project_uid, device_uid, began);
  DROP INDEX events_device_file;
  CREATE INDEX events_device_file ON events(project_uid, device_uid, file, received);
  `,

  // 3: the device sync. Trackers follow the protocol's convention (protocol/trackers.ts): a
  // position is the change number a tracker has SEEN UP TO (it was the next one to read), and the
  // hub's tracker for the device is "1" (SYNC_TRACKER; it was "_sync"). Notes keep their whole
  // version (history, conflicts, where the device was) and whether the stored version came from
  // the device unchanged (then the sync does not send it back). Each device has a tracker session.
  `
  UPDATE trackers SET change = max(change - 1, 0);
  UPDATE OR REPLACE trackers SET tracker_id = '1' WHERE tracker_id = '_sync';
  ALTER TABLE notes ADD COLUMN history TEXT;
  ALTER TABLE notes ADD COLUMN conflicts TEXT;
  ALTER TABLE notes ADD COLUMN place TEXT;
  ALTER TABLE notes ADD COLUMN arrived INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE devices ADD COLUMN tracker_session TEXT;
  `,
  // 4: reading events, sessions and usage (the Events and Usage APIs). Every index leads with the
  // project: telemetry is always read by project. SQLite ends each index with the rowid, the
  // order the hub stored the rows in, which is the last tie-breaker of every event order and the
  // order of the events cursor (events_arrival).
  `
  CREATE INDEX events_arrival ON events(project_uid);
  CREATE INDEX events_captured ON events(project_uid, captured, received);
  CREATE INDEX events_device ON events(project_uid, device_uid, captured, received);
  CREATE INDEX events_session ON events(project_uid, session_uid);
  CREATE INDEX sessions_project ON sessions(project_uid, began);
  CREATE INDEX health_log_project ON health_log(project_uid, when_sec);
  `,

  // 5: routes: routes, the queue of deliveries waiting for their turn (so that a restart resumes
  // them) and one log row per attempt. New tables only, so this migration does not depend on the
  // order it runs in among others that only add their own tables or columns.
  `
  CREATE TABLE routes (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    label TEXT NOT NULL,
    type TEXT NOT NULL,
    schema TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    settings TEXT NOT NULL,
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL
  );
  CREATE INDEX routes_project ON routes(project_uid, created);

  -- AUTOINCREMENT: a sequence number is never reused, so one that lingers in memory after its
  -- route was deleted can never name another delivery.
  CREATE TABLE route_queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    route_uid TEXT NOT NULL REFERENCES routes(uid) ON DELETE CASCADE,
    project_uid TEXT NOT NULL,
    event_uid TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    due INTEGER NOT NULL,
    source TEXT NOT NULL
  );

  CREATE TABLE route_logs (
    id INTEGER PRIMARY KEY,
    project_uid TEXT NOT NULL,
    route_uid TEXT NOT NULL,
    event_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    file TEXT NOT NULL,
    date INTEGER NOT NULL,
    duration INTEGER NOT NULL,
    attn INTEGER NOT NULL,
    status TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT NOT NULL,
    source TEXT NOT NULL
  );
  -- A route or an event belongs to one project, so the project need not lead these indexes
  -- (smaller indexes: a log row is written for every attempt).
  CREATE INDEX route_logs_route ON route_logs(route_uid, date);
  CREATE INDEX route_logs_event ON route_logs(event_uid);
  `,

  // 6: firmware images of a project, stored in chunks beside their metadata, and the
  // update requests of devices with their history. New tables only.
  `
  CREATE TABLE IF NOT EXISTS firmware (
    project_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    source TEXT NOT NULL,
    length INTEGER NOT NULL,
    md5 TEXT NOT NULL,
    crc32 INTEGER NOT NULL,
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL,
    version TEXT,
    notes TEXT,
    info TEXT,
    image TEXT,
    target TEXT,
    published INTEGER NOT NULL DEFAULT 1,
    created_by TEXT,
    PRIMARY KEY (project_uid, type, filename)
  );

  CREATE TABLE IF NOT EXISTS firmware_chunks (
    project_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (project_uid, type, filename, seq)
  );

  CREATE TABLE IF NOT EXISTS dfu_requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_uid TEXT NOT NULL,
    device_uid TEXT NOT NULL,
    type TEXT NOT NULL,
    filename TEXT NOT NULL,
    initiated INTEGER NOT NULL,
    current_version TEXT,
    requested_version TEXT,
    state TEXT NOT NULL,
    updates TEXT NOT NULL DEFAULT '[]',
    source TEXT NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS dfu_requests_device ON dfu_requests(project_uid, device_uid, type, id);
  `,
  // 7: attempts of a queued delivery begun and not ended (the hub stopped during them): counted
  // before a JSONata transform is evaluated, so that a delivery the hub dies on is not tried again
  // and again at every start.
  `
  ALTER TABLE route_queue ADD COLUMN begun INTEGER NOT NULL DEFAULT 0;
  `,
  // 8: route logs by date, so that their retention drops the old ones without a full scan.
  `
  CREATE INDEX IF NOT EXISTS route_logs_date ON route_logs(date);
  `,
  // 9: monitors with their alerts, batch jobs with their runs. New tables only.
  AUTOMATION_TABLES,
  // 10: which hub run makes a queued delivery (one process on SQLite; see RouteStore.claimDeliveries).
  `
  ALTER TABLE route_queue ADD COLUMN owner TEXT;
  `,
  // 11: webhooks (named inlets for outside services' events), project secrets (ciphertext
  // only: the key is in the hub's directory) and global event transformations. New tables only.
  `
  CREATE TABLE IF NOT EXISTS webhooks (
    project_uid TEXT NOT NULL,
    id TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    transform TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL,
    modified INTEGER NOT NULL,
    PRIMARY KEY (project_uid, id)
  );

  CREATE TABLE IF NOT EXISTS project_secrets (
    project_uid TEXT NOT NULL,
    name TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    created INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    modified INTEGER,
    modified_by TEXT,
    PRIMARY KEY (project_uid, name)
  );

  CREATE TABLE IF NOT EXISTS global_transforms (
    project_uid TEXT PRIMARY KEY,
    transform TEXT NOT NULL DEFAULT '',
    enabled INTEGER NOT NULL DEFAULT 0,
    modified INTEGER NOT NULL
  );
  `,

  // 12: one index fewer to write for every event (issue 26: at a million events each index is a
  // page written at random a session). events_device_file served only the latest events of a
  // device (LATEST_EVENTS), which now reads each file's latest time from the device's entries of
  // events_device and finds each event by its time (events_project).
  `
  DROP INDEX events_device_file;
  `,

  // 13: the events' indexes lead with a small integer for the project (project_keys), not its
  // 40-character UID: every event writes five index entries, each a fifth to a half the size it
  // was (issue 26: fewer index pages filled, so fewer written to the log a commit). Queries find
  // the key by the project's UID (an equality on a constant subquery, which SQLite searches the
  // index by); the events keep their project_uid column for everything else.
  `
  CREATE TABLE project_keys (key INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE);
  INSERT INTO project_keys (uid) SELECT DISTINCT project_uid FROM events ORDER BY project_uid;
  DROP INDEX events_arrival;
  DROP INDEX events_captured;
  DROP INDEX events_device;
  DROP INDEX events_session;
  DROP INDEX events_project;
  ALTER TABLE events ADD COLUMN project_key INTEGER;
  UPDATE events SET project_key = (SELECT k.key FROM project_keys k WHERE k.uid = events.project_uid);
  CREATE INDEX events_arrival ON events(project_key);
  CREATE INDEX events_captured ON events(project_key, captured, received);
  CREATE INDEX events_device ON events(project_key, device_uid, captured, received);
  CREATE INDEX events_session ON events(project_key, session_uid);
  CREATE INDEX events_project ON events(project_key, received);
  `,
];
