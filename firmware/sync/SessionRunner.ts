import type { JsonObject } from "../../core/json.js";
import type {
  OpenReply,
  ProtocolReply,
  ProtocolRequest,
  SessionTrigger,
  SignalsReply,
} from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type { SyncMode } from "../config/HubConfig.js";
import { HubLinkError } from "../radio/HubLink.js";
import { canReachHub } from "../radio/RadioConditions.js";
import type { ContinuousHold } from "./ContinuousHold.js";
import type { EngineState, HeldSession } from "./EngineState.js";
import { closeQuietly, exchange, noTraffic, openSession } from "./HubExchange.js";
import { takeChanges } from "./InboundMerge.js";
import { sendChanges } from "./OutboundBatches.js";
import type { ConnectFailure } from "./PenaltyBox.js";
import { openWithHub, type OpenFolds } from "./SessionOpening.js";
import { addUsage, setSyncState, type Traffic } from "./SyncState.js";
import { SyncFailure, type SessionOutcome, type SessionStep } from "./syncTypes.js";

/** Why a session that went as it should closes. */
const SYNC_COMPLETE = "sync complete";

/** What a session needs of the engine. */
export interface RunnerHooks {
  /** The mode in force. */
  mode(): SyncMode;
  /** The work every session does after the notefiles moved, in order. */
  steps(): readonly SessionStep[];
  /** Tells whoever listens how a session went. */
  outcome(outcome: SessionOutcome): void;
  /** In the turn that keeps a session's end (see `SyncEngine.onEnd`): its outcome as it ends well. */
  ending(outcome: SessionOutcome): void;
}

/** One session as it goes. */
interface Session {
  readonly why: SessionTrigger;
  readonly pullAll: boolean;
  readonly push: boolean;
  readonly started: number;
  readonly traffic: Traffic;
  readonly secure: boolean;
  /** The session held open (continuous mode) this sync runs in, if any. */
  readonly held: HeldSession | undefined;
  /** The session's token while the hub may still hold it open. */
  token?: string | undefined;
  connectFailure?: ConnectFailure;
  /** Its sync state and usage are kept (in the turn that applied an open reply that closed it). */
  ended?: boolean;
  /** The askers' changes to keep with the session (`SyncRequest.keep`), idempotent. */
  readonly keeps: readonly (() => void)[];
  /** They were made in the session's first turn. */
  kept?: boolean;
}

/** Where a session starts: the notefiles the hub has changes of, whether signals wait. */
interface Opened {
  readonly token: string;
  readonly files: readonly string[];
  readonly signals: number;
  /** The `open` reply (none for a session held open from before). */
  readonly reply?: OpenReply;
  /** The hub closed the session with its open (the open carried the close): nothing more is sent. */
  readonly closed: boolean;
}

/**
 * Runs one sync session: connects (or uses the session held open), moves the notefiles both ways,
 * runs the session steps, takes waiting signals, then closes or holds the session open
 * (continuous mode). A failure becomes a `{sync-error}` status; the session's usage is counted
 * and its outcome reported either way.
 */
export class SessionRunner {
  readonly #state: EngineState;
  readonly #hold: ContinuousHold;
  readonly #hooks: RunnerHooks;

  constructor(state: EngineState, hold: ContinuousHold, hooks: RunnerHooks) {
    this.#state = state;
    this.#hold = hold;
    this.#hooks = hooks;
  }

  /** `keeps`: the askers' changes to keep in the session's first turn (`SyncRequest.keep`). */
  async run(
    why: SessionTrigger,
    pullAll: boolean,
    push: boolean,
    keeps: readonly (() => void)[] = [],
  ): Promise<void> {
    const module = this.#state.module;
    const session: Session = {
      why,
      pullAll,
      push,
      started: module.clock.now(),
      traffic: noTraffic(),
      secure: module.hubLink.secure ?? true,
      held: this.#state.held,
      keeps,
    };
    let ok = false;
    let linkFailure = false;
    try {
      await this.#sync(session);
      ok = true;
    } catch (error) {
      linkFailure =
        error instanceof HubLinkError ||
        (error instanceof SyncFailure && error.message.includes("{network}"));
      await this.#failed(session, error);
    } finally {
      // A session held open (no first turn), or one that failed (its first turn may not have
      // committed): the askers' changes are kept now (again: they are idempotent).
      if (session.keeps.length > 0 && (!ok || !session.kept) && !this.#state.disposed)
        await module.exclusive(() => this.#keep(session)).catch(() => undefined);
      this.#state.connected = this.#state.held !== undefined;
      if (!this.#state.disposed) this.#report(session, ok, linkFailure);
    }
  }

  async #sync(session: Session): Promise<void> {
    const state = this.#state;
    const module = state.module;
    const { why, push, traffic, secure, held } = session;
    const opened = await this.#connect(session);
    const { token, closed } = opened;
    // A session the hub closed with its open took the push the open carried, and had nothing
    // else for the module: its steps run on the reply alone (a step no longer quiet waits for
    // the next session), and no close follows.
    if (closed) session.token = undefined;
    if (push && !closed) {
      state.status = "sending notefile changes {sync-get-local-changes}";
      await sendChanges(module, token, secure, traffic);
    }
    if (session.pullAll && opened.files.length > 0 && !closed) {
      state.status = "receiving notefile changes {sync-get-remote-changes}";
      await takeChanges(module, token, secure, opened.files, traffic);
    }
    const open = openSession(module, token, secure, why, traffic, opened.reply);
    for (const step of [...this.#hooks.steps()]) if (!closed || step.quiet?.()) await step.run(open);
    if (opened.signals > 0 && !closed) {
      const reply = await this.#exchange<SignalsReply>(session, {
        v: PROTOCOL_VERSION,
        type: "signals",
        token,
        after: state.signalSeq,
      });
      state.receiveSignals(reply.signals);
    }
    if (!held && !closed && this.#hooks.mode() === "continuous" && !state.disposed) {
      // Continuous mode: the session stays open for signals and the hub's changes.
      this.#hold.hold(token, secure);
    } else if (!held && !closed) {
      await this.#exchange(session, {
        v: PROTOCOL_VERSION,
        type: "close",
        token,
        why: SYNC_COMPLETE,
        usage: traffic,
        ...state.confirmDeleted(),
      });
    }
    session.token = undefined;
    state.completed();
    if (!session.ended) await module.exclusive(() => this.#end(session));
  }

  /** In a turn: the askers' changes are kept. */
  #keep(session: Session): void {
    for (const keep of session.keeps) keep();
    session.kept = true;
  }

  /** In a turn: the session went as it should; its sync state and usage are kept. */
  #end(session: Session): void {
    const module = this.#state.module;
    if (session.push) module.takeSyncRequests();
    setSyncState(module.notebox, { completed: module.noteTime(), ever: true });
    addUsage(module.notebox, module.noteTime(), session.traffic, session.secure);
    session.ended = true;
    const { why, started, traffic } = session;
    const held = this.#state.held !== undefined;
    this.#hooks.ending({ why, started, ended: module.clock.now(), ok: true, traffic, held });
  }

  /** The radio can reach the hub: a new session opens, or the one held open goes on. */
  async #connect(session: Session): Promise<Opened> {
    const state = this.#state;
    const radio = state.module.radio.state();
    // A WiFi station that cannot join says why (as the real module's hub.sync.status does) and
    // opens no registration penalty box: it tries again at the next sync.
    if (!radio.registered && radio.reason !== undefined) throw new SyncFailure(radio.reason);
    if (!radio.registered) {
      session.connectFailure = "registration";
      throw new SyncFailure("no network {network}");
    }
    if (!canReachHub(radio)) {
      session.connectFailure = "hub";
      throw new SyncFailure("can't open session to notehub {network}");
    }
    state.status = "starting communications {sync-begin}";
    state.connected = true;
    const held = session.held;
    if (held) {
      // A session held open (continuous): no new session, just the changes. A sync that takes
      // the hub's changes asks the hub what it has now (notefiles, signals, the environment)
      // rather than wait for the held session's wait to return.
      session.token = held.token;
      const files = held.files.splice(0);
      if (session.pullAll) {
        const now = await this.#exchange<SignalsReply>(session, {
          v: PROTOCOL_VERSION,
          type: "signals",
          token: held.token,
          after: state.signalSeq,
        });
        await this.#hold.take(now);
        for (const file of now.files) if (!files.includes(file)) files.push(file);
      }
      return { token: held.token, files, signals: 0, closed: false };
    }
    // What the session's steps ask the open to carry (the DFU step: the hub's firmware offer).
    const steps = this.#hooks.steps();
    const fields: JsonObject = {};
    for (const step of steps) Object.assign(fields, step.open?.());
    // The open carries the first push, and the close when no step has anything to send.
    const quiet = this.#hooks.mode() !== "continuous" && steps.every((step) => step.quiet?.() === true);
    // Its hooks set one by one: a closure written into an object literal is named at every session
    // (under tsx, a defineProperty each), one assigned is not.
    const folds: { -readonly [K in keyof OpenFolds]: OpenFolds[K] } = { push: session.push };
    folds.first = () => this.#keep(session);
    if (quiet) {
      folds.close = { why: SYNC_COMPLETE, pull: session.pullAll };
      folds.ended = () => this.#end(session);
    }
    const open = await openWithHub(
      state,
      session.why,
      session.traffic,
      () => this.#hooks.mode(),
      fields,
      folds,
    ).catch((error: unknown) => {
      // The hub did not answer the connection (a refusal is no connect failure).
      if (error instanceof HubLinkError) session.connectFailure = "hub";
      throw error;
    });
    session.token = open.token;
    const closed = open.closed === true;
    return { token: open.token, files: open.files, signals: open.signals, reply: open, closed };
  }

  /** The session failed: the status says why, and the hub hears the session is over. */
  async #failed(session: Session, error: unknown): Promise<void> {
    const state = this.#state;
    state.fail(error);
    if (session.held) state.held = undefined;
    if (session.token) {
      // Tell the hub the session is over if it can still hear it; the token expires anyway.
      await closeQuietly(state.module, session.token, "sync error", state.confirmDeleted());
    }
  }

  #report(session: Session, ok: boolean, linkFailure: boolean): void {
    const state = this.#state;
    const outcome: { -readonly [K in keyof SessionOutcome]: SessionOutcome[K] } = {
      why: session.why,
      started: session.started,
      ended: state.module.clock.now(),
      ok,
      traffic: session.traffic,
      held: state.held !== undefined,
    };
    if (!ok) outcome.error = state.error ?? "sync failed";
    if (linkFailure) outcome.linkFailure = linkFailure;
    if (session.connectFailure) outcome.connectFailure = session.connectFailure;
    if (session.ended) outcome.kept = true;
    this.#hooks.outcome(outcome);
  }

  #exchange<R extends ProtocolReply>(session: Session, request: ProtocolRequest): Promise<R> {
    return exchange<R>(this.#state.module, request, session.traffic);
  }
}
