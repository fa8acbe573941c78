import type { WebReply, WebRequestFields } from "../../protocol/messages.js";
import type { ModuleLog } from "../ModuleLog.js";
import type { SyncEngine } from "../sync/SyncEngine.js";

/** A web request as the module asks its hub for it: the `web` message without its envelope. */
export type WebCall = WebRequestFields;

/** How a web request ended: the hub's reply, or why there was none (`SyncFailure`, `HubLinkError`). */
export type WebOutcome = { readonly reply: WebReply } | { readonly error: unknown };

/** What the agent needs of the module. */
export interface WebHost {
  readonly sync: Pick<SyncEngine, "online" | "isOnline">;
  /** Runs `task` in its turn among the module's writers, as one transaction. */
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
  readonly log: ModuleLog;
}

/**
 * The module's web requests (`web.*`): each is one `web` message in the session the module holds
 * open (continuous mode), answered when the hub's proxy route answered. A request a host waits
 * for runs between the request's turns (`awaitIo`); an `async` one runs on its own, and what came
 * of it is handed to its `settle` in a turn of its own. RAM only: a restart makes a new agent, and
 * what an old one still had under way is dropped when it ends.
 */
export class WebAgent {
  readonly #host: WebHost;
  readonly #pending = new Set<Promise<void>>();
  #disposed = false;

  constructor(host: WebHost) {
    this.#host = host;
  }

  /** True while the module holds a session open (web requests need one). */
  get online(): boolean {
    return this.#host.sync.isOnline;
  }

  /**
   * Makes the request in the session held open now. Rejects with the sync engine's `SyncFailure`
   * (no session; the hub refused, `{code}` first) or the link's `HubLinkError` (no answer).
   */
  request(call: WebCall): Promise<WebReply> {
    return this.#host.sync.online((session) => session.exchange<WebReply>({ type: "web", ...call }));
  }

  /**
   * Starts a request nobody waits for (`async:true`); `settle` runs with its outcome in a turn of
   * its own among the module's writers, unless the module restarted meanwhile.
   */
  background(call: WebCall, settle: (outcome: WebOutcome) => void): void {
    if (this.#disposed) return;
    const run = (async () => {
      let outcome: WebOutcome;
      try {
        outcome = { reply: await this.request(call) };
      } catch (error) {
        outcome = { error };
      }
      if (this.#disposed) return;
      await this.#host.exclusive(() => settle(outcome));
    })()
      .catch((error: unknown) => {
        if (!this.#disposed)
          this.#host.log.error("an asynchronous web request could not store its outcome", {
            route: call.route,
            error: String((error as Error)?.message ?? error),
          });
      })
      .finally(() => this.#pending.delete(run));
    this.#pending.add(run);
  }

  /** Asynchronous requests under way. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves once every asynchronous request has ended and stored its outcome. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** The module restarted or closed: outcomes still to come are dropped. */
  dispose(): void {
    this.#disposed = true;
  }
}
