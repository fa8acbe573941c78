import type { SignalsReply } from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { hubSettings, type SyncMode } from "../config/HubConfig.js";
import type { EngineState, HeldSession } from "./EngineState.js";
import { applyEnvironment } from "./SessionOpening.js";
import { closeQuietly, exchange, noTraffic, openSession } from "./HubExchange.js";
import { addUsage, type Traffic } from "./SyncState.js";
import { SyncFailure, type OpenSession, type SyncRequest } from "./syncTypes.js";

/** How long a held (continuous) session asks the hub to wait for signals per request, ms. */
const SIGNAL_WAIT_MS = 60_000;

/** What the held session needs of the engine. */
export interface HoldHooks {
  /** The mode in force (the session is held while it is continuous). */
  mode(): SyncMode;
  /** Asks for a sync (the hub's changes, a new session). */
  request(request: SyncRequest): void;
  /** A sync is running now. */
  running(): boolean;
  /** A held session ended: the schedule plans the next one. */
  ended(): void;
}

/**
 * Continuous mode: the session stays open after a sync. The module waits on the hub for signals
 * and for its notefiles to change (a long poll of `signals`); with `hub.set sync:true` it takes
 * those changes at once, else at its next sync. Online requests (`web.*`) run in it.
 */
export class ContinuousHold {
  readonly #state: EngineState;
  readonly #hooks: HoldHooks;

  constructor(state: EngineState, hooks: HoldHooks) {
    this.#state = state;
    this.#hooks = hooks;
  }

  /**
   * Holds the session `token` open, waiting on the hub. Ends when the mode leaves continuous,
   * the link fails or the module goes.
   */
  hold(token: string, secure: boolean): void {
    const held: HeldSession = { token, secure, files: [] };
    this.#state.held = held;
    void this.#wait(held);
  }

  async #wait(held: HeldSession): Promise<void> {
    const state = this.#state;
    const traffic = noTraffic();
    try {
      while (!state.disposed && state.held === held && this.#hooks.mode() === "continuous") {
        const reply = await exchange<SignalsReply>(
          state.module,
          {
            v: PROTOCOL_VERSION,
            type: "signals",
            token: held.token,
            after: state.signalSeq,
            wait: SIGNAL_WAIT_MS,
          },
          traffic,
        );
        if (state.disposed || state.held !== held) return;
        await this.take(reply);
        if (state.disposed || state.held !== held) return;
        for (const file of reply.files) if (!held.files.includes(file)) held.files.push(file);
        if (held.files.length > 0 && hubSettings(state.module).sync)
          this.#hooks.request({ why: "inbound", in: true });
      }
      if (state.held === held && !state.disposed) await this.#leave(held, traffic);
    } catch (error) {
      // A session ended on purpose (`end`: the mode left continuous, its duration is over) may
      // see its last wait refused: that is no failure.
      if (state.held !== held) return;
      state.held = undefined;
      if (!state.disposed) state.fail(error);
    } finally {
      state.connected = state.held !== undefined;
      // The session is over: the schedule plans the next one.
      if (!state.disposed) this.#hooks.ended();
      if (!state.disposed) await this.#count(traffic, held.secure);
    }
  }

  /**
   * What a `signals` reply of the held session brought: its signals, and the hub's environment
   * when it changed (a variable set on the hub reaches a continuous module at once).
   */
  async take(reply: SignalsReply): Promise<void> {
    const state = this.#state;
    state.receiveSignals(reply.signals);
    const env = reply.env;
    if (env) await state.module.exclusive(() => applyEnvironment(state.module, env));
  }

  /** The mode left continuous: the session closes with its usage. */
  async #leave(held: HeldSession, traffic: Traffic): Promise<void> {
    const state = this.#state;
    this.#release();
    await exchange(
      state.module,
      {
        v: PROTOCOL_VERSION,
        type: "close",
        token: held.token,
        why: "mode changed",
        usage: traffic,
        ...state.confirmDeleted(),
      },
      traffic,
    );
  }

  /**
   * Ends the session held open (continuous mode's `duration` is over, or a temporary continuous
   * session ends) and, with `reopen`, opens a new one.
   */
  async end(why: string, reopen: boolean): Promise<void> {
    const state = this.#state;
    const held = state.held;
    if (held) {
      this.#release();
      await closeQuietly(state.module, held.token, why, state.confirmDeleted());
    }
    if (reopen && !state.disposed) this.#hooks.request({ why: "continuous" });
  }

  /**
   * The session held open is let go: `hub.status`, `hub.sync.status` and `card.status` stop
   * reporting it at once (connected only while a sync runs).
   */
  #release(): void {
    const state = this.#state;
    state.held = undefined;
    state.connected = this.#hooks.running();
    if (state.status.includes("{connected}")) state.status = "completed {sync-end}";
  }

  /**
   * Runs `work` in the session held open now: the module is online. Throws a `SyncFailure`
   * when no session is open; the caller reports it.
   */
  async online<T>(work: (session: OpenSession) => Promise<T>): Promise<T> {
    const held = this.#state.held;
    if (!held) throw new SyncFailure("the module is not connected to its hub {hub-not-connected}");
    const traffic = noTraffic();
    try {
      return await work(openSession(this.#state.module, held.token, held.secure, "continuous", traffic));
    } finally {
      await this.#count(traffic, held.secure);
    }
  }

  /** Adds a held session's traffic to the module's usage, in one turn. */
  #count(traffic: Traffic, secure: boolean): Promise<unknown> {
    const module = this.#state.module;
    return module
      .exclusive(() => addUsage(module.notebox, module.noteTime(), traffic, secure))
      .catch(() => undefined);
  }
}
