import type { JsonObject } from "../../core/json.js";
import type { Page, PageResult } from "./records.js";

/** A monitor of a project: its settings as the API takes them, and its state on the hub. */
export interface MonitorRecord {
  /** `monitor:<uuid>`. */
  uid: string;
  projectUid: string;
  /** The Monitor fields the API sets (name, source_selector, threshold, ...), as given. */
  settings: JsonObject;
  /**
   * What the evaluation keeps between events: the alert open per key (`*` or a device UID) and
   * when notifications were last routed. Written only by the evaluation.
   */
  state: JsonObject;
  created: number;
  modified: number;
}

/** An alert of a monitor: the Alert document the API answers, updated when it clears. */
export interface AlertRecord {
  /** `alert:<uuid>`. */
  uid: string;
  projectUid: string;
  monitorUid: string;
  /** Epoch ms it was raised. */
  created: number;
  document: JsonObject;
}

/** Monitors and their alerts. */
export interface MonitorStore {
  createMonitor(monitor: MonitorRecord): Promise<void>;
  getMonitor(uid: string): Promise<MonitorRecord | undefined>;
  /** Monitors of a project, oldest first. */
  listMonitors(projectUid: string): Promise<MonitorRecord[]>;
  /** Replaces the settings; throws `not-found`. */
  updateMonitor(uid: string, settings: JsonObject, modified: number): Promise<void>;
  /** Replaces the evaluation's state (nothing happens when the monitor is gone). */
  setMonitorState(uid: string, state: JsonObject): Promise<void>;
  /** Removes the monitor (its alerts stay); false when there was none. */
  deleteMonitor(uid: string): Promise<boolean>;
  addAlert(alert: AlertRecord): Promise<void>;
  getAlert(uid: string): Promise<AlertRecord | undefined>;
  /** Replaces an alert's document (it cleared); throws `not-found`. */
  updateAlert(uid: string, document: JsonObject): Promise<void>;
  /** Alerts of a project (of one monitor when given), newest first. */
  listAlerts(
    projectUid: string,
    filter: { monitorUid?: string },
    page: Page,
  ): Promise<PageResult<AlertRecord>>;
}

/** A batch job of a project: its name and JobDefinition. */
export interface JobRecord {
  uid: string;
  projectUid: string;
  name: string;
  createdBy: string;
  /** Epoch ms. */
  created: number;
  definition: JsonObject;
}

/** One run of a job: the JobRun document the API answers (results included), kept as it goes. */
export interface JobRunRecord {
  /** The report UID. */
  uid: string;
  projectUid: string;
  jobUid: string;
  /** Epoch ms it was submitted. */
  submitted: number;
  document: JsonObject;
}

/** Batch jobs and their runs. */
export interface JobStore {
  createJob(job: JobRecord): Promise<void>;
  getJob(uid: string): Promise<JobRecord | undefined>;
  /** Jobs of a project, oldest first. */
  listJobs(projectUid: string): Promise<JobRecord[]>;
  /** Removes the job (its runs' reports stay until deleted); false when there was none. */
  deleteJob(uid: string): Promise<boolean>;
  /** Creates or replaces a run. */
  putRun(run: JobRunRecord): Promise<void>;
  getRun(uid: string): Promise<JobRunRecord | undefined>;
  /** Runs of a job, newest first. */
  listRuns(jobUid: string): Promise<JobRunRecord[]>;
  /** False when there was none. */
  deleteRun(uid: string): Promise<boolean>;
}
