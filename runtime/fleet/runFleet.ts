import { Worker } from "node:worker_threads";
import type { HubApi } from "../HubApi.js";
import { AcceleratedClock } from "./AcceleratedClock.js";
import { campaignTargets, fleetCampaigns, withoutCampaigns } from "./fleetCampaigns.js";
import { Fleet, remoteApiFor, type FleetOptions, type FleetProgress } from "./Fleet.js";
import { fleetSeats } from "./fleetIdentity.js";
import {
  emptyCounts,
  mergeCounts,
  summarize,
  type FleetCounts,
  type FleetSession,
  type FleetSummary,
} from "./FleetStats.js";

export interface FleetRunOptions extends Omit<FleetOptions, "part"> {
  /** Fleet clock time to run, in ms. */
  readonly durationMs: number;
  /**
   * Worker threads to spread the modules over (with a hub elsewhere; default 1: this thread).
   * The fleet's own hub runs on one fake clock, in this thread.
   */
  readonly workers?: number;
  readonly onProgress?: (progress: FleetProgress) => void;
  /** Told once the fleet's own hub runs (its directory, URL and credentials). */
  readonly onStarted?: (fleet: Fleet) => void;
}

export interface FleetRun {
  readonly summary: FleetSummary;
  /** The sessions of the devices `timelines` named, by DeviceUID. */
  readonly timelines: Readonly<Record<string, readonly FleetSession[]>>;
}

/** What a worker of a fleet posts to the thread that started it. */
export type WorkerReport =
  | { readonly kind: "running" }
  | { readonly kind: "progress"; readonly progress: FleetProgress }
  | {
      readonly kind: "done";
      readonly counts: FleetCounts;
      readonly timelines: Record<string, FleetSession[]>;
    }
  | { readonly kind: "failed"; readonly message: string };

/** What a worker of a fleet is given. */
export interface WorkerTask {
  readonly options: Omit<FleetRunOptions, "onProgress" | "onStarted" | "workers">;
  readonly part: { readonly index: number; readonly count: number };
}

/**
 * Runs a fleet start to end: in this thread (the fleet's own hub, or one worker), or over
 * `workers` worker threads with a hub elsewhere, their counts summed in one summary.
 */
export async function runFleet(options: FleetRunOptions): Promise<FleetRun> {
  const workers = options.workers ?? 1;
  if (workers > 1 && "dir" in options.hub)
    throw new Error(
      "worker threads are for a hub elsewhere (--hub URL); the fleet's own hub runs in one thread",
    );
  if (workers > 1) return runInWorkers(options, workers);
  const fleet = await Fleet.start(options);
  try {
    options.onStarted?.(fleet);
    const summary = await fleet.run(options.durationMs, options.onProgress);
    return { summary, timelines: Object.fromEntries(fleet.timelines()) };
  } finally {
    await fleet.close();
  }
}

/**
 * A worker of the fleet: the built module in the package; in a clone, its TypeScript source
 * loaded through tsx, which the worker registers first (a worker does not inherit the loader).
 */
function startWorker(task: WorkerTask): Worker {
  const url = new URL("./fleetWorker.js", import.meta.url);
  if (!import.meta.url.endsWith(".ts")) return new Worker(url, { workerData: task });
  const source = new URL("./fleetWorker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(code, { eval: true, workerData: task });
}

async function runInWorkers(options: FleetRunOptions, count: number): Promise<FleetRun> {
  const { onProgress, onStarted, workers, ...shared } = options;
  void onStarted;
  void workers;
  const started = performance.now();
  const progress: FleetProgress[] = [];
  const counts = emptyCounts();
  const timelines: Record<string, FleetSession[]> = {};
  // The hub side of the workload (its environment changes and firmware campaign) is done once,
  // by this thread through the hub's API, for the modules of every worker; the workers only sync.
  const remote = await remoteApiFor(options);
  const hubSide = remote ? hubSideOf(options, remote.api) : undefined;
  const forWorkers = remote ? { ...shared, workload: withoutCampaigns(options.workload) } : shared;
  let running = 0;
  const runs = Array.from({ length: count }, (_, index) => {
    const task: WorkerTask = { options: forWorkers, part: { index, count } };
    const worker = startWorker(task);
    return new Promise<void>((resolve, reject) => {
      worker.on("message", (report: WorkerReport) => {
        if (report.kind === "running") {
          if (++running === count) hubSide?.start(counts);
        } else if (report.kind === "progress") {
          progress[index] = report.progress;
          onProgress?.(sumProgress(progress));
        } else if (report.kind === "done") {
          mergeCounts(counts, report.counts);
          Object.assign(timelines, report.timelines);
          resolve();
        } else reject(new Error(report.message));
      });
      worker.on("error", reject);
      worker.on("exit", (code) => {
        if (code !== 0) reject(new Error(`a fleet worker stopped (exit status ${code})`));
        resolve();
      });
    });
  });
  try {
    await Promise.all(runs);
  } finally {
    await hubSide?.stop();
    remote?.close();
  }
  const summary = summarize(counts, {
    simulatedMs: options.durationMs,
    wallMs: performance.now() - started,
    eventsCounted: false,
    rssBytes: process.memoryUsage.rss(),
  });
  return { summary, timelines };
}

/** The workload's campaigns for every module of this shard, on a clock at the workers' speed from when they all run. */
function hubSideOf(options: FleetRunOptions, api: HubApi) {
  let campaigns: ReturnType<typeof fleetCampaigns> | undefined;
  return {
    start(counts: FleetCounts) {
      const clock = new AcceleratedClock(typeof options.speed === "number" ? options.speed : 1);
      const seats = fleetSeats(options.workload, options.modules, options.shard);
      campaigns = fleetCampaigns(api, clock, campaignTargets(options.workload, seats), counts);
    },
    async stop() {
      campaigns?.stop();
      await campaigns?.settled();
    },
  };
}

function sumProgress(parts: readonly FleetProgress[]): FleetProgress {
  const known = parts.filter(Boolean);
  return {
    simulatedMs: Math.min(...known.map((p) => p.simulatedMs)),
    durationMs: known[0]?.durationMs ?? 0,
    sessions: known.reduce((n, p) => n + p.sessions, 0),
    failed: known.reduce((n, p) => n + p.failed, 0),
  };
}
