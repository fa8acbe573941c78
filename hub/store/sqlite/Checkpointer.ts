import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** When the background checkpointer copies the write-ahead log into the database. */
export interface CheckpointerOptions {
  /**
   * Pages in the log not yet copied that start a (PASSIVE) checkpoint; default CHECKPOINT_PAGES.
   */
  readonly pages?: number;
  /** How often (real milliseconds) the log is looked at; default 20. */
  readonly pollMs?: number;
  /**
   * A log holding more than this (bytes of frames) is reported (`onLongLog`), for the writer to
   * have it started again from its beginning; default 256 MiB (each restart holds the writer for
   * the worker's last copy and its two fsyncs, some 30-45 ms here: at 64 MiB a fleet of 10,000
   * modules waited 41 times in two hours, 1.8 s in all, at 256 MiB 12 times). SQLite restarts the log at a
   * writer's first write when the whole log had been copied as its transaction began; a writer
   * that commits again and again never finds it so by chance, and keeps appending. So, between
   * two of its transactions, the writer has the worker copy the rest (`copyAll`) and waits for it.
   * (The worker never runs TRUNCATE or RESTART itself: they take the writer's lock, and a writer
   * beginning then may be refused SQLITE_BUSY at once, busy_timeout or not: seen in the fleet.)
   */
  readonly restartBytes?: number;
  /** Told after each checkpoint the checkpointer started itself (tests, benchmarks). */
  readonly onCheckpoint?: (result: CheckpointResult) => void;
}

/** What `PRAGMA wal_checkpoint` answers: busy (1: not complete), pages in the log, pages copied. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

// The worker's program, plain JavaScript run by `eval` (no loader needed in a clone, a test or the
// package). It has a connection of its own to the same file and only ever checkpoints. How many
// pages the log holds and how many are copied is read from the WAL index (the -shm file), whose
// header SQLite documents (fileformat2, "The WAL-Index Format"): mxFrame at byte 16 of the
// header, nBackfill at byte 96 (the checkpoint information after the header's two copies), both
// 32-bit in the machine's byte order. A torn read only makes a checkpoint early or late.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const os = require("node:os");
const Database = require(workerData.driver);
const { path, pages, pollMs, restartBytes, done } = workerData;
const db = new Database(path, { fileMustExist: true });
db.pragma("busy_timeout = 0");
db.pragma("synchronous = NORMAL");
const frameBytes = db.pragma("page_size", { simple: true }) + 24;
const answer = new Int32Array(done);
const header = Buffer.alloc(100);
const read32 = os.endianness() === "LE" ? (o) => header.readUInt32LE(o) : (o) => header.readUInt32BE(o);
let shm;
let frames = 0;
function backlog() {
  try {
    if (shm === undefined) shm = fs.openSync(path + "-shm", "r");
    if (fs.readSync(shm, header, 0, 100, 0) < 100) return 0;
    frames = read32(16);
    return frames - read32(96);
  } catch {
    return 0;
  }
}
function checkpoint(mode) {
  try {
    return db.pragma("wal_checkpoint(" + mode + ")")[0];
  } catch (error) {
    return { busy: 1, error: String(error) };
  }
}
function poll() {
  if (backlog() < pages) return false;
  const result = checkpoint("PASSIVE");
  parentPort.postMessage({ type: "auto", result, long: frames * frameBytes > restartBytes });
  return true;
}
const timer = setInterval(poll, pollMs);
parentPort.on("message", (message) => {
  if (message.type === "poll") {
    parentPort.postMessage({ type: "polled", id: message.id, copied: poll() });
  } else if (message.type === "copyAll") {
    const result = checkpoint("PASSIVE");
    const whole = result.busy === 0 && result.log === result.checkpointed;
    Atomics.store(answer, 0, whole ? 1 : 2);
    Atomics.notify(answer, 0);
  } else if (message.type === "checkpoint") {
    parentPort.postMessage({ type: "checkpointed", id: message.id, result: checkpoint("PASSIVE") });
  } else if (message.type === "stop") {
    clearInterval(timer);
    checkpoint("PASSIVE");
    if (shm !== undefined) fs.closeSync(shm);
    db.close();
    parentPort.close();
  }
});
parentPort.postMessage({ type: "ready" });
`;

const driver = createRequire(import.meta.url).resolve("better-sqlite3");
/**
 * `pages`' default: the worker copies the log once this many pages wait. Four times SQLite's own
 * 1000: a page the hub writes again and again (the ends of the tables and indexes a session
 * appends to, their interior pages, page 1) is copied once a checkpoint however often the log
 * holds it, and each checkpoint costs two fsyncs. A fleet's 1,000 modules over four hours: 31 %
 * fewer reads of the log, 8,000 fewer writes, 30 fsyncs instead of 66 (issue 26).
 */
export const CHECKPOINT_PAGES = 4000;
/** `restartBytes`' default: how long the log grows before the writer has it started again. */
export const RESTART_BYTES = 256 * 1024 * 1024;
/** How long `copyAll` waits for the worker at most (a copy behind a slow disk is abandoned). */
const COPY_ALL_TIMEOUT_MS = 1000;

/**
 * Copies a SQLite file's write-ahead log into the database from a worker thread with a connection
 * of its own, so that the writer's commits only append to the log: PASSIVE checkpoints (never
 * waiting for the writer or a reader) whenever `pages` pages wait; a log grown past
 * `restartBytes` is reported for the writer to have it started again (`copyAll`). The writer's
 * connection must have its own automatic checkpoints off meanwhile. A crash mid-checkpoint loses
 * nothing: the log stays authoritative until the copy is complete.
 */
export class Checkpointer {
  readonly #worker: Worker;
  /** The worker's answer to `copyAll`: 0 none yet, 1 the whole log copied, 2 not. */
  readonly #copied = new Int32Array(new SharedArrayBuffer(4));
  readonly #waiting = new Map<number, (copied: boolean) => void>();
  #next = 0;
  #stopped: Promise<void> | undefined;
  #failed = false;
  readonly ready: Promise<void>;

  constructor(
    path: string,
    options: CheckpointerOptions = {},
    hooks: { onFailure?: (error: Error) => void; onLongLog?: () => void } = {},
  ) {
    this.#worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        driver,
        path,
        pages: options.pages ?? CHECKPOINT_PAGES,
        pollMs: options.pollMs ?? 20,
        restartBytes: options.restartBytes ?? RESTART_BYTES,
        done: this.#copied.buffer,
      },
    });
    this.#worker.unref();
    let ready!: () => void;
    this.ready = new Promise((resolve) => (ready = resolve));
    type Message = { type: string; id?: number; result?: CheckpointResult; long?: boolean; copied?: boolean };
    this.#worker.on("message", (message: Message) => {
      if (message.type === "ready") ready();
      if (message.type === "checkpointed") this.#settle(message.id!);
      if (message.type === "polled") this.#settle(message.id!, message.copied);
      if (message.type !== "auto") return;
      if (message.long) hooks.onLongLog?.();
      options.onCheckpoint?.(message.result!);
    });
    const fail = (error: Error) => {
      if (this.#failed || this.#stopped) return;
      this.#failed = true;
      ready();
      for (const id of [...this.#waiting.keys()]) this.#settle(id);
      hooks.onFailure?.(error);
    };
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`the checkpointer stopped (exit code ${code})`)));
  }

  /** True while it runs (not stopped, not failed). */
  get running(): boolean {
    return !this.#failed && !this.#stopped;
  }

  /** A PASSIVE checkpoint now; resolves once it has run (at once when the checkpointer is not running). */
  async checkpoint(): Promise<void> {
    await this.#ask("checkpoint");
  }

  /**
   * Has the worker look at the log now, as it does every `pollMs`: true when it found `pages` pages
   * waiting and copied them (a PASSIVE checkpoint, told to `onCheckpoint`). Tests, benchmarks.
   */
  poll(): Promise<boolean> {
    return this.#ask("poll");
  }

  /** Posts a request of `type` to the worker; resolves with its answer (false when it is not running). */
  #ask(type: "checkpoint" | "poll"): Promise<boolean> {
    if (!this.running) return Promise.resolve(false);
    const id = this.#next++;
    const done = new Promise<boolean>((resolve) => this.#waiting.set(id, resolve));
    this.#worker.postMessage({ type, id });
    return done;
  }

  /**
   * Has the worker copy the whole log into the database now (a PASSIVE checkpoint) and waits for
   * it, blocking this thread at most `timeoutMs`: true when every frame of the log was copied, so
   * that the next transaction of this thread's connection, begun before anything else is
   * committed, starts the log again from its beginning. For a writer between its transactions,
   * once the log is long (`onLongLog`): the copy is the worker's, only its wait is the writer's.
   */
  copyAll(timeoutMs = COPY_ALL_TIMEOUT_MS): boolean {
    if (!this.running) return false;
    Atomics.store(this.#copied, 0, 0);
    this.#worker.postMessage({ type: "copyAll" });
    Atomics.wait(this.#copied, 0, 0, timeoutMs);
    // Too late (still 0): the answer that comes after is overwritten by the next request.
    return Atomics.load(this.#copied, 0) === 1;
  }

  #settle(id: number, answer = false): void {
    const resolve = this.#waiting.get(id);
    this.#waiting.delete(id);
    resolve?.(answer);
  }

  /** Stops: one last PASSIVE checkpoint, then the worker closes its connection and ends. */
  stop(): Promise<void> {
    if (this.#stopped) return this.#stopped;
    if (this.#failed) return (this.#stopped = Promise.resolve());
    this.#stopped = new Promise((resolve) => {
      this.#worker.once("exit", () => resolve());
      // Waited for: the process stays up until the last copy is done.
      this.#worker.ref();
      this.#worker.postMessage({ type: "stop" });
    });
    for (const id of [...this.#waiting.keys()]) this.#settle(id);
    return this.#stopped;
  }

  /** Ends the worker at once (a checkpoint it is running completes or is abandoned, safely). */
  terminate(): void {
    if (!this.#stopped) this.#stopped = this.#worker.terminate().then(() => undefined);
    for (const id of [...this.#waiting.keys()]) this.#settle(id);
  }
}
