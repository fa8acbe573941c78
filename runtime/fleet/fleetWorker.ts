// A worker thread of a fleet (runFleet with `workers`): runs its part of the modules against the
// hub elsewhere and posts its progress and counts to the thread that started it.
import { parentPort, workerData } from "node:worker_threads";
import { Fleet } from "./Fleet.js";
import type { WorkerReport, WorkerTask } from "./runFleet.js";

const task = workerData as WorkerTask;
const post = (report: WorkerReport) => parentPort!.postMessage(report);

try {
  const fleet = await Fleet.start({ ...task.options, part: task.part });
  post({ kind: "running" });
  try {
    let last = 0;
    await fleet.run(task.options.durationMs, (progress) => {
      const now = performance.now();
      if (now - last < 200 && progress.simulatedMs < progress.durationMs) return;
      last = now;
      post({ kind: "progress", progress });
    });
    post({ kind: "done", counts: fleet.counts, timelines: Object.fromEntries(fleet.timelines()) as never });
  } finally {
    await fleet.close();
  }
} catch (error) {
  post({ kind: "failed", message: error instanceof Error ? error.message : String(error) });
}
