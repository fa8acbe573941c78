import type { JsonObject } from "../../core/json.js";
import * as errors from "../errors.js";
import { TERMINAL_STATUSES } from "../jobs/jobReports.js";
import type { JobRecord, JobRunRecord } from "../store/AutomationStore.js";
import { JOB_DEFINITION } from "./automationBodies.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The Job as listed: its name, who made it and when, and how its newest run stands. */
async function jobView(ctx: ProjectContext, job: JobRecord): Promise<JsonObject> {
  const out: JsonObject = {
    job_uid: job.uid,
    name: job.name,
    created: seconds(job.created),
    created_by: job.createdBy,
  };
  const last = (await ctx.services.store.jobs.listRuns(job.uid))[0];
  if (last) {
    out.last_run_status = String(last.document.status ?? "");
    out.last_run_submitted = Number(last.document.submitted ?? 0);
    out.last_run_completed = Number(last.document.completed ?? 0);
  }
  return out;
}

/** A run as answered: `results` only in the detail view. */
function runView(run: JobRunRecord, detail: boolean): JsonObject {
  if (detail) return run.document;
  const { results: _results, ...summary } = run.document;
  return summary;
}

async function resolveJob(ctx: ProjectContext, uid: string): Promise<JobRecord> {
  const job = await ctx.services.store.jobs.getJob(uid);
  if (!job || job.projectUid !== ctx.project.uid) throw errors.jobNotFound(uid);
  return job;
}

async function resolveRun(ctx: ProjectContext, uid: string): Promise<JobRunRecord> {
  const run = await ctx.services.store.jobs.getRun(uid);
  if (!run || run.projectUid !== ctx.project.uid) throw errors.jobRunNotFound(uid);
  return run;
}

const isRunning = (run: JobRunRecord): boolean => !TERMINAL_STATUSES.includes(String(run.document.status));

/** Batch jobs: their definitions, runs (real or dry), run reports and cancellation. */
export function registerJobRoutes(router: HubRouter): void {
  const { store, ids, jobs } = router.services;
  const J = "/v1/projects/:projectUID/jobs";

  router.project("GET", J, "viewer", async (ctx) => {
    const list = await store.jobs.listJobs(ctx.project.uid);
    return { jobs: await Promise.all(list.map((job) => jobView(ctx, job))) };
  });

  router.project(
    "POST",
    J,
    "developer",
    async (ctx) => {
      const name = ctx.query.string("name");
      if (name === undefined || name.trim() === "") throw errors.queryRequired("name");
      const definition = ctx.body(JOB_DEFINITION) as JsonObject;
      const p = ctx.principal;
      const job: JobRecord = {
        uid: ids.uuid(),
        projectUid: ctx.project.uid,
        name,
        createdBy: p.kind === "user" ? p.username : p.clientId,
        created: ctx.now,
        definition,
      };
      await store.jobs.createJob(job);
      return { job_uid: job.uid };
    },
    { status: 201 },
  );

  router.project("GET", `${J}/:jobUID`, "viewer", async (ctx) => {
    const job = await resolveJob(ctx, ctx.params.jobUID!);
    return { ...(await jobView(ctx, job)), definition: job.definition };
  });

  router.project("DELETE", `${J}/:jobUID`, "developer", async (ctx) => {
    const job = await resolveJob(ctx, ctx.params.jobUID!);
    for (const run of await store.jobs.listRuns(job.uid)) if (isRunning(run)) await jobs.cancel(run);
    await store.jobs.deleteJob(job.uid);
    return { success: true };
  });

  router.project("POST", `${J}/:jobUID/run`, "developer", async (ctx) => {
    const job = await resolveJob(ctx, ctx.params.jobUID!);
    const p = ctx.principal;
    const who = p.kind === "user" ? p.username : p.clientId;
    const run = await jobs.submit(job, who, ctx.query.bool("dry_run"));
    return { report_uid: run.uid };
  });

  router.project("GET", `${J}/:jobUID/runs`, "viewer", async (ctx) => {
    const job = await resolveJob(ctx, ctx.params.jobUID!);
    const status = ctx.query.string("status");
    const dryRun = ctx.query.has("dry_run") ? ctx.query.bool("dry_run") : undefined;
    const runs = (await store.jobs.listRuns(job.uid)).filter(
      (r) =>
        (status === undefined || r.document.status === status) &&
        (dryRun === undefined || r.document.dry_run === dryRun),
    );
    return { runs: runs.map((r) => runView(r, false)) };
  });

  router.project("GET", `${J}/runs/:reportUID`, "viewer", async (ctx) => {
    const view = ctx.query.string("view") ?? "summary";
    if (view !== "summary" && view !== "detail") throw errors.queryOneOf("view", ["summary", "detail"]);
    return runView(await resolveRun(ctx, ctx.params.reportUID!), view === "detail");
  });

  router.project("DELETE", `${J}/runs/:reportUID`, "developer", async (ctx) => {
    const run = await resolveRun(ctx, ctx.params.reportUID!);
    if (isRunning(run)) await jobs.cancel(run);
    await store.jobs.deleteRun(run.uid);
    return undefined;
  });

  router.project("POST", `${J}/runs/:reportUID/cancel`, "developer", async (ctx) => {
    const run = await resolveRun(ctx, ctx.params.reportUID!);
    return { successful: await jobs.cancel(run) };
  });
}
