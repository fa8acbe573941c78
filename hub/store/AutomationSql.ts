import type { JsonObject } from "../../core/json.js";
import type {
  AlertRecord,
  JobRecord,
  JobRunRecord,
  JobStore,
  MonitorRecord,
  MonitorStore,
} from "./AutomationStore.js";
import type { Page, PageResult } from "./records.js";
import { storedJson } from "./sqlite/storedJson.js";
import { reread, type SqlPort } from "./SqlPort.js";
import { StoreError } from "./StoreError.js";

// Every store method below is a single statement, so it is atomic on its own on either backend.

interface MonitorRow {
  uid: string;
  project_uid: string;
  settings: string;
  state: string;
  created: number;
  modified: number;
}

interface DocumentRow {
  uid: string;
  project_uid: string;
  owner_uid: string;
  at: number;
  document: string;
}

interface JobRow {
  uid: string;
  project_uid: string;
  name: string;
  created_by: string;
  created: number;
  definition: string;
}

const monitor = (r: MonitorRow): MonitorRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  settings: storedJson(r.settings),
  state: storedJson(r.state),
  created: Number(r.created),
  modified: Number(r.modified),
});

const alert = (r: DocumentRow): AlertRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  monitorUid: r.owner_uid,
  created: Number(r.at),
  document: storedJson(r.document),
});

const job = (r: JobRow): JobRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  name: r.name,
  createdBy: r.created_by,
  created: Number(r.created),
  definition: storedJson(r.definition),
});

const run = (r: DocumentRow): JobRunRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  jobUid: r.owner_uid,
  submitted: Number(r.at),
  document: storedJson(r.document),
});

const ALERT_COLUMNS = "uid, project_uid, monitor_uid AS owner_uid, created AS at, document";
const RUN_COLUMNS = "uid, project_uid, job_uid AS owner_uid, submitted AS at, document";

/** Monitors and alerts over either backend's statements. */
export class SqlMonitorStore implements MonitorStore {
  constructor(private readonly sql: SqlPort) {}

  async createMonitor(m: MonitorRecord): Promise<void> {
    await this.sql.run(
      "INSERT INTO monitors (uid, project_uid, settings, state, created, modified) VALUES (?, ?, ?, ?, ?, ?)",
      m.uid,
      m.projectUid,
      JSON.stringify(m.settings),
      JSON.stringify(m.state),
      m.created,
      m.modified,
    );
  }

  async getMonitor(uid: string): Promise<MonitorRecord | undefined> {
    const row = await this.sql.get<MonitorRow>("SELECT * FROM monitors WHERE uid = ?", uid);
    return row && monitor(row);
  }

  async listMonitors(projectUid: string): Promise<MonitorRecord[]> {
    // Read after every session (the monitors' step).
    const rows = await reread.all<MonitorRow>(
      this.sql,
      "SELECT * FROM monitors WHERE project_uid = ? ORDER BY created, uid",
      projectUid,
    );
    return rows.map(monitor);
  }

  async updateMonitor(uid: string, settings: JsonObject, modified: number): Promise<void> {
    const changed = await this.sql.run(
      "UPDATE monitors SET settings = ?, modified = ? WHERE uid = ?",
      JSON.stringify(settings),
      modified,
      uid,
    );
    if (changed === 0) throw new StoreError("not-found", `monitor ${uid} not found`);
  }

  async setMonitorState(uid: string, state: JsonObject): Promise<void> {
    await this.sql.run("UPDATE monitors SET state = ? WHERE uid = ?", JSON.stringify(state), uid);
  }

  async deleteMonitor(uid: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM monitors WHERE uid = ?", uid)) > 0;
  }

  async addAlert(a: AlertRecord): Promise<void> {
    await this.sql.run(
      "INSERT INTO alerts (uid, project_uid, monitor_uid, created, document) VALUES (?, ?, ?, ?, ?)",
      a.uid,
      a.projectUid,
      a.monitorUid,
      a.created,
      JSON.stringify(a.document),
    );
  }

  async getAlert(uid: string): Promise<AlertRecord | undefined> {
    const row = await this.sql.get<DocumentRow>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE uid = ?`, uid);
    return row && alert(row);
  }

  async updateAlert(uid: string, document: JsonObject): Promise<void> {
    const changed = await this.sql.run(
      "UPDATE alerts SET document = ? WHERE uid = ?",
      JSON.stringify(document),
      uid,
    );
    if (changed === 0) throw new StoreError("not-found", `alert ${uid} not found`);
  }

  async listAlerts(
    projectUid: string,
    filter: { monitorUid?: string },
    page: Page,
  ): Promise<PageResult<AlertRecord>> {
    const where = filter.monitorUid === undefined ? "" : " AND monitor_uid = ?";
    const params: unknown[] = [projectUid, ...(filter.monitorUid === undefined ? [] : [filter.monitorUid])];
    const rows = await this.sql.all<DocumentRow>(
      `SELECT ${ALERT_COLUMNS} FROM alerts WHERE project_uid = ?${where}
       ORDER BY created DESC, uid DESC LIMIT ? OFFSET ?`,
      ...params,
      page.limit + 1,
      page.offset,
    );
    return { items: rows.slice(0, page.limit).map(alert), hasMore: rows.length > page.limit };
  }
}

/** Batch jobs and their runs over either backend's statements. */
export class SqlJobStore implements JobStore {
  constructor(private readonly sql: SqlPort) {}

  async createJob(j: JobRecord): Promise<void> {
    await this.sql.run(
      "INSERT INTO jobs (uid, project_uid, name, created_by, created, definition) VALUES (?, ?, ?, ?, ?, ?)",
      j.uid,
      j.projectUid,
      j.name,
      j.createdBy,
      j.created,
      JSON.stringify(j.definition),
    );
  }

  async getJob(uid: string): Promise<JobRecord | undefined> {
    const row = await this.sql.get<JobRow>("SELECT * FROM jobs WHERE uid = ?", uid);
    return row && job(row);
  }

  async listJobs(projectUid: string): Promise<JobRecord[]> {
    const rows = await this.sql.all<JobRow>(
      "SELECT * FROM jobs WHERE project_uid = ? ORDER BY created, uid",
      projectUid,
    );
    return rows.map(job);
  }

  async deleteJob(uid: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM jobs WHERE uid = ?", uid)) > 0;
  }

  async putRun(r: JobRunRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO job_runs (uid, project_uid, job_uid, submitted, document) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (uid) DO UPDATE SET document = excluded.document`,
      r.uid,
      r.projectUid,
      r.jobUid,
      r.submitted,
      JSON.stringify(r.document),
    );
  }

  async getRun(uid: string): Promise<JobRunRecord | undefined> {
    const row = await this.sql.get<DocumentRow>(`SELECT ${RUN_COLUMNS} FROM job_runs WHERE uid = ?`, uid);
    return row && run(row);
  }

  async listRuns(jobUid: string): Promise<JobRunRecord[]> {
    const rows = await this.sql.all<DocumentRow>(
      `SELECT ${RUN_COLUMNS} FROM job_runs WHERE job_uid = ? ORDER BY submitted DESC, uid DESC`,
      jobUid,
    );
    return rows.map(run);
  }

  async deleteRun(uid: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM job_runs WHERE uid = ?", uid)) > 0;
  }
}

/**
 * The tables, one migration's text for both backends (PostgreSQL's migration makes TEXT bytewise).
 * Released: never edit it, append a migration instead.
 */
export const AUTOMATION_TABLES = `
  CREATE TABLE IF NOT EXISTS monitors (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    settings TEXT NOT NULL,
    state TEXT NOT NULL,
    created BIGINT NOT NULL,
    modified BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS monitors_project ON monitors(project_uid, created);
  CREATE TABLE IF NOT EXISTS alerts (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    monitor_uid TEXT NOT NULL,
    created BIGINT NOT NULL,
    document TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS alerts_project ON alerts(project_uid, created);
  CREATE INDEX IF NOT EXISTS alerts_monitor ON alerts(monitor_uid, created);
  CREATE TABLE IF NOT EXISTS jobs (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    name TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created BIGINT NOT NULL,
    definition TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS jobs_project ON jobs(project_uid, created);
  CREATE TABLE IF NOT EXISTS job_runs (
    uid TEXT PRIMARY KEY,
    project_uid TEXT NOT NULL,
    job_uid TEXT NOT NULL,
    submitted BIGINT NOT NULL,
    document TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS job_runs_job ON job_runs(job_uid, submitted);
`;
