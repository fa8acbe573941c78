import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { JobRecord, JobRunRecord } from "../store/AutomationStore.js";
import type { HubStore } from "../store/HubStore.js";
import type { SyncNotifier } from "../sync/SyncNotifier.js";
import { applyRequests, requestsFor, type DeviceOutcome } from "./batchRequests.js";
import { deviceReport, progressText, projectReport, seconds, TERMINAL_STATUSES } from "./jobReports.js";
import { selectDevices } from "./jobSelection.js";

/** Hub clock time between two devices of a run (one device per step, so that a run can be cancelled). */
export const JOB_STEP_MS = 10;

interface Running {
  job: JobRecord;
  devices: string[];
  index: number;
  errors: number;
  timer: TimerHandle | undefined;
}

/**
 * Runs of batch jobs on the hub clock. A run takes the devices the job selects when it is
 * submitted and goes through them one per step (`JOB_STEP_MS`), applying each device's requests
 * (the defaults with its own over them) or, in a dry run, working out what they would change. The
 * run's document is stored after every step: its `status` shows the device just done
 * (`dev:... updated: vars_set ...`), then the terminal status; `results` holds each device's
 * outcome and what `report_options` asks for. Cancelling ends it before the next device. Runs under
 * way when the hub stops stay as they were (docs/differences.md).
 */
export class JobService {
  readonly #running = new Map<string, Running>();
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly notifier: SyncNotifier,
    private readonly onError: (error: unknown) => void,
    private readonly onMembership: () => void = () => undefined,
  ) {}

  /** Submits a run of the job; it starts at the next step of the hub clock. */
  async submit(job: JobRecord, who: string, dryRun: boolean): Promise<JobRunRecord> {
    const now = this.clock.now();
    const devices = (await selectDevices(this.store, job.projectUid, job.definition.select)).map(
      (d) => d.uid,
    );
    let uid = `${job.uid}-${now}`;
    for (let n = 1; await this.store.jobs.getRun(uid); n++) uid = `${job.uid}-${now}-${n}`;
    const document: JsonObject = {
      report_uid: uid,
      job_uid: job.uid,
      job_name: job.name,
      status: "submitted",
      dry_run: dryRun,
      cancel: false,
      submitted_by: who,
      submitted: seconds(now),
      updated: seconds(now),
      results: { devices: {} },
    };
    const run: JobRunRecord = { uid, projectUid: job.projectUid, jobUid: job.uid, submitted: now, document };
    (document.results as JsonObject).job = jobSummary(document);
    await this.store.jobs.putRun(run);
    const running: Running = { job, devices, index: 0, errors: 0, timer: undefined };
    this.#running.set(uid, running);
    this.#schedule(uid, running);
    return run;
  }

  /** Cancels a run under way (true), or says it had ended already (false). */
  cancel(run: JobRunRecord): Promise<boolean> {
    return this.#serial(async () => {
      const current = (await this.store.jobs.getRun(run.uid)) ?? run;
      if (TERMINAL_STATUSES.includes(String(current.document.status))) return false;
      const running = this.#running.get(run.uid);
      if (running?.timer) this.clock.clearTimer(running.timer);
      this.#running.delete(run.uid);
      const now = seconds(this.clock.now());
      const document = {
        ...current.document,
        cancel: true,
        status: "cancelled",
        completed: now,
        updated: now,
      };
      await this.#save(current, document);
      return true;
    });
  }

  /** Resolves once the steps begun so far have ended. */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#chain) {
      seen = this.#chain;
      await seen;
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const r of this.#running.values()) if (r.timer) this.clock.clearTimer(r.timer);
    this.#running.clear();
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(work);
    this.#chain = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  #schedule(uid: string, running: Running): void {
    running.timer = this.clock.setTimer(() => {
      running.timer = undefined;
      void this.#serial(() => this.#step(uid)).catch((error: unknown) => {
        this.#running.delete(uid);
        if (!this.#stopped) this.onError(error);
      });
    }, JOB_STEP_MS);
  }

  async #step(uid: string): Promise<void> {
    const running = this.#running.get(uid);
    if (!running || this.#stopped) return;
    const run = await this.store.jobs.getRun(uid);
    if (!run) return void this.#running.delete(uid);
    const now = this.clock.now();
    const document: JsonObject = { ...run.document };
    const results = { ...(document.results as JsonObject) };
    const devices = { ...(results.devices as JsonObject) };
    if (running.index === 0) document.started = seconds(now);
    const dryRun = document.dry_run === true;
    const deviceUid = running.devices[running.index];
    if (deviceUid !== undefined) {
      const outcome = await this.#device(running.job, deviceUid, dryRun, now);
      devices[deviceUid] = outcome;
      if (outcome.status === "error") running.errors++;
      document.status = progressText(deviceUid, outcome, dryRun);
      running.index++;
    }
    if (running.index >= running.devices.length) {
      this.#running.delete(uid);
      document.status =
        running.errors > 0
          ? "completed with errors"
          : dryRun
            ? "dry run completed successfully"
            : "completed successfully";
      document.completed = seconds(now);
      const app = await projectReport(this.store, running.job.projectUid, reportOptions(running.job));
      if (Object.keys(app).length > 0) results.app = app;
    } else this.#schedule(uid, running);
    document.updated = seconds(now);
    document.results = { ...results, devices };
    await this.#save(run, document);
  }

  async #device(job: JobRecord, deviceUid: string, dryRun: boolean, now: number): Promise<DeviceOutcome> {
    const device = await this.store.devices.getDevice(deviceUid);
    if (!device || device.projectUid !== job.projectUid) {
      return { status: "error", error: "the device is no longer in the project" };
    }
    const { outcome, envChanged } = await applyRequests(
      this.store,
      device,
      requestsFor(job.definition, deviceUid),
      dryRun,
      now,
    );
    if (envChanged) this.store.afterCommit(() => this.notifier.notify(deviceUid, "env"));
    if (!dryRun && (outcome.fleets_joined || outcome.fleets_left)) this.onMembership();
    const after = (await this.store.devices.getDevice(deviceUid)) ?? device;
    return { ...outcome, ...(await deviceReport(this.store, after, reportOptions(job))) };
  }

  async #save(run: JobRunRecord, document: JsonObject): Promise<void> {
    const results = { ...((document.results as JsonObject | undefined) ?? {}), job: jobSummary(document) };
    await this.store.jobs.putRun({ ...run, document: { ...document, results } });
  }
}

const reportOptions = (job: JobRecord): JsonObject => (job.definition.report_options ?? {}) as JsonObject;

/** The `results.job` part of a run's report (the definition's example). */
function jobSummary(doc: JsonObject): JsonObject {
  const out: JsonObject = {
    job_uid: doc.job_uid ?? "",
    job_name: doc.job_name ?? "",
    dry_run: doc.dry_run ?? false,
    status: doc.status ?? "",
    when_submitted: doc.submitted ?? 0,
    when_updated: doc.updated ?? 0,
    who_submitted: doc.submitted_by ?? "",
  };
  if (doc.started !== undefined) out.when_started = doc.started;
  if (doc.completed !== undefined) out.when_completed = doc.completed;
  return out;
}
