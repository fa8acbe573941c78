import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { JSONATA_WORKER_SOURCE } from "./jsonataWorkerSource.js";

/** Longest a JSONata expression may run (ms of real time) and how deep it may recurse. */
export const JSONATA_TIMEOUT_MS = 1000;
export const JSONATA_STACK = 500;
/**
 * Real time past JSONATA_TIMEOUT_MS after which a worker still evaluating is killed (the
 * library's own timeout only acts between evaluation steps: one long built-in call, a regular
 * expression backtracking or a huge `$pad`, runs on until the worker is stopped).
 */
export const JSONATA_GRACE_MS = 500;
/** Heap a worker may use (old generation, MB); reaching it ends that worker, never the hub. */
export const JSONATA_MEMORY_MB = 128;
/** Longest JSON text (or string) an expression may produce. */
export const JSONATA_MAX_RESULT_CHARS = 8 * 1024 * 1024;
/** Worker processes at most per evaluator (started when first needed). */
export const JSONATA_WORKERS = Math.max(1, Math.min(2, availableParallelism()));
const MAX_CACHED = 200;

export interface JsonataOptions {
  /** Worker processes at most (default JSONATA_WORKERS). */
  workers?: number;
  /** The evaluation time limit in ms of real time (default JSONATA_TIMEOUT_MS). */
  timeoutMs?: number;
  /** A worker's heap limit in MB (default JSONATA_MEMORY_MB). */
  memoryMb?: number;
}

/** What an expression made of its input. */
export interface JsonataResult {
  /** The value (undefined: the expression produced none). */
  value: unknown;
  /** The value's JSON text (undefined with the value). */
  json: string | undefined;
  /** `$doNotRoute()` was called. */
  doNotRoute: boolean;
}

/**
 * A failed evaluation: `limit` when the expression had to be stopped (its worker killed at
 * the deadline or out of memory, its result too large), rather than failing on its own (syntax,
 * a type error, `$error()`, the library's own step timeout or depth limit).
 */
export class JsonataError extends Error {
  override readonly name = "JsonataError";

  constructor(
    message: string,
    readonly limit: boolean,
  ) {
    super(message);
  }
}

interface Job {
  id: number;
  source: string;
  input: unknown;
  ms: number;
  resolve: (result: JsonataResult) => void;
  reject: (error: JsonataError) => void;
}

interface Slot {
  worker: ChildProcess;
  ready: boolean;
  job: Job | undefined;
  deadline: NodeJS.Timeout | undefined;
  /** Set once the slot has been taken out of the pool (killed, failed or exited). */
  gone: boolean;
}

interface WorkerError {
  message: string;
  code?: string;
  position?: number;
  limit: boolean;
}

type WorkerMessage =
  | { ready: true }
  | { id: number; json: string | undefined; doNotRoute: boolean }
  | { id: number; error: WorkerError };

let jsonataPath: string | undefined;

/**
 * The hub's JSONata evaluator, for route transforms, proxy routes' `jsonata`/`jsonata_in` and smart
 * fleet rules. User expressions never run in the hub's process: each is evaluated in one of a few
 * worker processes (Node run with `-e`, started when first needed, kept warm, compiled
 * expressions cached per worker, talking over IPC) with a heap limit (`--max-old-space-size`) and
 * a wall-clock deadline. Processes rather than worker threads: a thread's `resourceLimits` are no
 * hard limit (one allocation past them is a fatal error of the whole process), a process's end is
 * its own. An evaluation that runs past JSONATA_TIMEOUT_MS (+ JSONATA_GRACE_MS) or exhausts the
 * worker's heap fails with a JsonataError (`limit` set); its worker is killed and replaced, and
 * the hub goes on answering meanwhile. `$now()` and `$millis()` read the hub's clock (`now`, epoch
 * ms, read when the evaluation is asked for), not the machine's, so that a fake clock shapes what
 * the expressions see as it shapes everything else; `$now` keeps its picture and time zone
 * arguments. Idle workers do not keep the process alive; `close()` ends them.
 */
export class JsonataCache {
  readonly #now: () => number;
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #memoryMb: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(now: () => number = Date.now, options: JsonataOptions = {}) {
    this.#now = now;
    this.#size = Math.max(1, options.workers ?? JSONATA_WORKERS);
    this.#timeoutMs = options.timeoutMs ?? JSONATA_TIMEOUT_MS;
    this.#memoryMb = options.memoryMb ?? JSONATA_MEMORY_MB;
  }

  /** Worker processes running now (tests). */
  get workers(): number {
    return this.#slots.length;
  }

  /**
   * Evaluates `source` over `input` (a JSON value; it is copied to the worker). `$doNotRoute()`
   * marks the input as not to be routed; any failure (syntax, evaluation, a limit reached) rejects
   * with a JsonataError saying what happened.
   */
  evaluate(source: string, input: unknown): Promise<JsonataResult> {
    if (this.#closed) return Promise.reject(new JsonataError("the JSONata evaluator is closed", false));
    // One instant per evaluation, as the library's own `$now()` has.
    const ms = this.#now();
    return new Promise<JsonataResult>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, source, input, ms, resolve, reject });
      this.#dispatch();
    });
  }

  /** Ends the workers; evaluations queued or under way fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closing = new JsonataError("the JSONata evaluator closed (the hub is stopping)", false);
    for (const job of this.#queue.splice(0)) job.reject(closing);
    const ends: Promise<unknown>[] = [];
    for (const slot of [...this.#slots]) {
      if (slot.job) slot.job.reject(closing);
      slot.job = undefined;
      ends.push(this.#remove(slot));
    }
    await Promise.allSettled(ends);
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const slot = this.#slots.find((s) => s.ready && !s.job);
      if (!slot) {
        // One worker starting per evaluation waiting, up to the pool's size.
        if (this.#slots.length < this.#size && this.#queue.length > this.#starting()) this.#spawn();
        break;
      }
      const job = this.#queue.shift()!;
      this.#run(slot, job);
    }
    this.#hold();
  }

  /**
   * Workers evaluating, or starting while evaluations wait, keep the process alive (its caller
   * is waiting for them); idle ones do not.
   */
  #hold(): void {
    for (const slot of this.#slots) {
      const { worker } = slot;
      if (slot.job || (!slot.ready && this.#queue.length > 0)) {
        worker.ref();
        worker.channel?.ref();
      } else {
        worker.unref();
        worker.channel?.unref();
      }
    }
  }

  #starting(): number {
    return this.#slots.filter((s) => !s.ready).length;
  }

  #run(slot: Slot, job: Job): void {
    slot.job = job;
    try {
      slot.worker.send({
        id: job.id,
        source: job.source,
        input: job.input,
        ms: job.ms,
        timeoutMs: this.#timeoutMs,
        stack: JSONATA_STACK,
        maxResultChars: JSONATA_MAX_RESULT_CHARS,
      });
    } catch (error) {
      // The input cannot be copied (not a JSON value): that evaluation fails, the worker stays.
      slot.job = undefined;
      job.reject(new JsonataError(`JSONata input cannot be evaluated: ${(error as Error).message}`, false));
      return;
    }
    // Held (ref'd) while an evaluation runs: a process waiting for one stays up until it ends.
    slot.deadline = setTimeout(() => {
      slot.deadline = undefined;
      const late = slot.job;
      slot.job = undefined;
      late?.reject(
        new JsonataError(
          `JSONata expression ran longer than ${this.#timeoutMs} ms: it was stopped (its worker was killed)`,
          true,
        ),
      );
      void this.#remove(slot);
      this.#dispatch();
    }, this.#timeoutMs + JSONATA_GRACE_MS);
  }

  #spawn(): void {
    jsonataPath ??= createRequire(import.meta.url).resolve("jsonata");
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // none of the hub's loaders or flags: the program is plain JavaScript
    const worker = spawn(
      process.execPath,
      [
        `--max-old-space-size=${this.#memoryMb}`,
        "-e",
        JSONATA_WORKER_SOURCE,
        jsonataPath,
        String(MAX_CACHED),
      ],
      { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced", env },
    );
    const slot: Slot = { worker, ready: false, job: undefined, deadline: undefined, gone: false };
    this.#slots.push(slot);
    worker.on("message", (message: WorkerMessage) => this.#message(slot, message));
    worker.on("error", (error: Error & { code?: string }) => this.#failed(slot, error));
    worker.on("exit", (code, signal) => {
      // V8 aborts a process whose heap is exhausted.
      const error: Error & { code?: string } = new Error(
        `the JSONata worker ended (${signal ?? `exit code ${String(code)}`})`,
      );
      if (signal === "SIGABRT" || code === 134) error.code = "OUT_OF_MEMORY";
      this.#failed(slot, error);
    });
  }

  #message(slot: Slot, message: WorkerMessage): void {
    if (slot.gone) return;
    if ("ready" in message) {
      slot.ready = true;
      this.#dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    clearTimeout(slot.deadline);
    slot.deadline = undefined;
    slot.job = undefined;
    if ("error" in message) {
      // The library's own step timeout and depth limit (D1012, D1011) end the evaluation in good
      // order, as the expression's own failures: only a worker stopped or a result too large is a
      // `limit`.
      const { error } = message;
      job.reject(new JsonataError(describe(error, this.#timeoutMs), error.limit));
    } else {
      const { json, doNotRoute } = message;
      job.resolve({ value: json === undefined ? undefined : JSON.parse(json), json, doNotRoute });
    }
    this.#dispatch();
  }

  /** The worker died (heap limit, a crash) or exited: its evaluation fails, another takes its place. */
  #failed(slot: Slot, error: Error & { code?: string }): void {
    if (slot.gone) return;
    const job = slot.job;
    slot.job = undefined;
    const wasReady = slot.ready;
    void this.#remove(slot);
    if (job) {
      const text =
        error.code === "OUT_OF_MEMORY"
          ? `JSONata expression used more than ${this.#memoryMb} MB of memory: it was stopped`
          : `JSONata evaluation failed: ${error.message}`;
      job.reject(new JsonataError(text, true));
    }
    if (!wasReady && !job) {
      // A worker that could not even start: what waits fails rather than waiting for ever.
      const text = `the JSONata worker could not start: ${error.message}`;
      for (const queued of this.#queue.splice(0)) queued.reject(new JsonataError(text, false));
      this.#hold();
      return;
    }
    this.#dispatch();
  }

  #remove(slot: Slot): Promise<void> {
    slot.gone = true;
    clearTimeout(slot.deadline);
    slot.deadline = undefined;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    const { worker } = slot;
    if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
    const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.kill("SIGKILL");
    return ended;
  }
}

/** A JSONata error (code and position from the library, or a message) in one line. */
function describe(error: WorkerError, timeoutMs: number): string {
  const code = error.code
    ? ` (${error.code}${error.position !== undefined ? ` at ${error.position}` : ""})`
    : "";
  switch (error.code) {
    case "D1012":
      return `JSONata expression ran longer than ${timeoutMs} ms`;
    case "D1011":
      return `JSONata expression recursed deeper than ${JSONATA_STACK} levels`;
  }
  if (error.limit) return `JSONata expression reached a limit: ${error.message}`;
  return `JSONata error: ${error.message}${code}`;
}
