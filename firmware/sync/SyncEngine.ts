import type { SignalRecord } from "../../protocol/messages.js";
import { effectiveMode, hubSettings, type SyncMode } from "../config/HubConfig.js";
import { ContinuousHold } from "./ContinuousHold.js";
import { EngineState } from "./EngineState.js";
import { SessionRunner } from "./SessionRunner.js";
import type {
  OpenSession,
  SessionOutcome,
  SessionStep,
  SyncHost,
  SyncPolicy,
  SyncRequest,
  SyncStatus,
} from "./syncTypes.js";

export {
  SyncFailure,
  type IdentityRecord,
  type KeyRecord,
  type OpenSession,
  type SessionOutcome,
  type SessionStep,
  type SyncHost,
  type SyncPolicy,
  type SyncRequest,
  type SyncStatus,
} from "./syncTypes.js";

/**
 * The module's end of the sync protocol (docs/sync-protocol.md): sessions with the hub over the
 * `HubLink` port. Each step that reads or changes the module's state takes its turn among the
 * module's writers as one transaction; the exchanges happen between turns, so requests keep being
 * answered during a sync, and whatever fails (a message, the power, the process) a repeat of the
 * step is harmless. RAM only: a restart starts a new engine from what the flash kept.
 *
 * This is the face the module and its requests use: the queue of sync requests, one session at a
 * time. The work is in parts of one purpose: `SessionRunner` (a session: open, transfer, steps,
 * close, failures), `SessionOpening` (hello, open, what the open reply says), `OutboundBatches`
 * (the module's changes in batches), `InboundMerge` (the hub's changes merged), `ContinuousHold`
 * (the session held open in continuous mode), `HubExchange` (one exchange, its reply read through
 * `protocol/readReply.ts`), on the shared RAM state of `EngineState`.
 */
export class SyncEngine {
  readonly #module: SyncHost;
  readonly #state: EngineState;
  readonly #hold: ContinuousHold;
  readonly #runner: SessionRunner;
  #queue: SyncRequest[] = [];
  #running: Promise<void> | undefined;
  /** Held sessions being closed now (`endHeld`): `idle` waits for them too. */
  readonly #closing = new Set<Promise<void>>();
  #listeners = new Set<() => void>();
  readonly #steps: SessionStep[] = [];
  readonly #outcomes = new Set<(outcome: SessionOutcome) => void>();
  readonly #endings = new Set<(outcome: SessionOutcome) => void>();
  #policy: SyncPolicy | undefined;

  constructor(module: SyncHost) {
    this.#module = module;
    this.#state = new EngineState(module);
    this.#hold = new ContinuousHold(this.#state, {
      mode: () => this.#mode(),
      request: (request) => this.request(request),
      running: () => this.#running !== undefined,
      ended: () => this.#changed(),
    });
    this.#runner = new SessionRunner(this.#state, this.#hold, {
      mode: () => this.#mode(),
      steps: () => this.#steps,
      outcome: (outcome) => {
        logSession(module, outcome);
        for (const listener of [...this.#outcomes]) listener(outcome);
      },
      ending: (outcome) => {
        for (const listener of this.#endings) listener(outcome);
      },
    });
  }

  /** Asks for a sync; it runs after the current turn, one session at a time. */
  request(request: SyncRequest): void {
    if (this.#state.disposed) return;
    if (request.why === "explicit") this.#state.requestedAt = this.#module.clock.now();
    this.#queue.push(request);
    this.#start();
  }

  /** The schedule that decides the mode in force and holds syncs in a penalty box. */
  governBy(policy: SyncPolicy): void {
    this.#policy = policy;
  }

  /** Called after each request: notefiles asked to sync now start a sync where the mode allows. */
  noticeSyncRequests(): void {
    const files = this.#module.syncRequests();
    if (files.size === 0 || this.#queue.some((r) => r.why === "note")) return;
    const mode = this.#mode();
    if (mode !== "periodic" && mode !== "continuous") return;
    if (this.#policy && !this.#policy.mayStart()) return;
    this.request({ why: "note", out: true });
  }

  status(): SyncStatus {
    return this.#state.report(this.#running !== undefined);
  }

  /** A sync is running or asked for (`status().running`, without the rest of the status). */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Signals received and not yet taken by `hub.signal`, oldest first. */
  get signalsWaiting(): number {
    return this.#state.signals.length;
  }

  takeSignal(): SignalRecord | undefined {
    return this.#state.signals.shift();
  }

  /** Resolves once no sync is running or asked for, and no held session is being closed. */
  async idle(): Promise<void> {
    while (this.#running || this.#closing.size > 0) {
      await this.#running;
      await Promise.all([...this.#closing]);
    }
  }

  /** Adds work to every session (runs in the order added); returns a function that removes it. */
  addStep(step: SessionStep): () => void {
    this.#steps.push(step);
    return () => {
      const i = this.#steps.indexOf(step);
      if (i >= 0) this.#steps.splice(i, 1);
    };
  }

  /** Calls `listener` with the outcome of every session (schedules, penalty boxes, timelines). */
  onSession(listener: (outcome: SessionOutcome) => void): () => void {
    this.#outcomes.add(listener);
    return () => this.#outcomes.delete(listener);
  }

  /**
   * Calls `listener` in the turn that keeps the end of a session that went as it should (its sync
   * state and usage), before its outcome is told: what is to be kept in flash with the session's
   * end goes in the same commit (the energy counters). The outcome listeners hear of the session
   * after it, with the same `traffic` object.
   */
  onEnd(listener: (outcome: SessionOutcome) => void): () => void {
    this.#endings.add(listener);
    return () => this.#endings.delete(listener);
  }

  /**
   * Runs `work` in the session held open now (continuous mode, `hub.set on`): the module is
   * online. Throws a `SyncFailure` when no session is open; the caller reports it.
   */
  online<T>(work: (session: OpenSession) => Promise<T>): Promise<T> {
    return this.#hold.online(work);
  }

  /** True while a session is held open (the module is online). */
  get isOnline(): boolean {
    return this.#state.held !== undefined;
  }

  /** Calls `listener` when a sync ends (for the harness's timeline). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  dispose(): void {
    this.#state.disposed = true;
    this.#queue = [];
    this.#state.held = undefined;
  }

  /**
   * Ends the session held open (continuous mode's `duration` is over, or a temporary continuous
   * session ends) and, with `reopen`, opens a new one.
   */
  endHeld(why: string, reopen: boolean): Promise<void> {
    const closing = this.#hold.end(why, reopen);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** The hub's name a held session belongs to (for tests). */
  get held(): boolean {
    return this.#state.held !== undefined;
  }

  #mode(): SyncMode {
    return this.#policy?.mode() ?? effectiveMode(hubSettings(this.#module), this.#module.voltage.now().usb);
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #start(): void {
    if (this.#running) return;
    const run = (async () => {
      // Let the request that asked finish its turn first.
      await Promise.resolve();
      while (this.#queue.length > 0 && !this.#state.disposed) {
        const batch = this.#queue.splice(0);
        const why = batch.find((r) => r.why === "explicit")?.why ?? batch[0]!.why;
        const wantsIn = batch.some((r) => !r.out || r.in);
        const wantsOut = batch.some((r) => !r.in || r.out);
        const keeps = batch.flatMap((r) => (r.keep ? [r.keep] : []));
        await this.#runner.run(why, wantsIn, wantsOut, keeps);
      }
    })();
    this.#running = run;
    void run.finally(() => {
      if (this.#running === run) this.#running = undefined;
      this.#changed();
    });
  }
}

/** One line in the module's log per session: how it ended, what started it, how long it took. */
function logSession(module: SyncHost, outcome: SessionOutcome): void {
  const fields = {
    why: outcome.why,
    ms: outcome.ended - outcome.started,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  if (outcome.ok) module.log.info("sync session ended", fields);
  else module.log.warn("sync session failed", fields);
}
