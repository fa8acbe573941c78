import type { Clock } from "../../core/Clock.js";
import { type ProtocolReply, type SignalsReply, type SignalsRequest } from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type { HubStore } from "../store/HubStore.js";
import { deviceEnvironment } from "./deviceEnvironment.js";
import { expired, type SessionRecords } from "./SessionRecords.js";
import type { SyncNotifier } from "./SyncNotifier.js";

/** The longest a `signals` request waits (continuous mode). */
export const MAX_SIGNAL_WAIT_MS = 60_000;
/** Signals one `signals` reply carries at most. */
const MAX_SIGNALS = 100;

export interface SignalWaitParts {
  readonly store: HubStore;
  readonly clock: Clock;
  readonly notifier: SyncNotifier;
  readonly records: SessionRecords;
}

/**
 * `signals`: the signals waiting for the device, after a wait on the hub clock for one (or for a
 * notefile change) when the module asks to wait (continuous mode). The wait holds no transaction.
 */
export class SignalWaits {
  readonly #waits = new Set<() => void>();
  /** The waits of each session, by its token: a `close` of the session ends them. */
  readonly #byToken = new Map<string, Set<() => void>>();

  constructor(private readonly p: SignalWaitParts) {}

  /** Ends every wait now (the hub is closing); each is answered as if its wait were over. */
  releaseAll(): void {
    for (const release of [...this.#waits]) release();
  }

  /**
   * The session `token` was closed (the module left continuous mode, or renews its session): its
   * wait is answered now instead of holding the module's request until the wait is over.
   */
  release(token: string): void {
    for (const release of [...(this.#byToken.get(token) ?? [])]) release();
  }

  /** Signals after `after` (earlier ones acknowledged), waiting for one first when asked. */
  async signals(request: SignalsRequest, bytes: number): Promise<ProtocolReply> {
    const waiting = await this.p.records.sessions.get(request.token, this.p.clock.now());
    if (!waiting) throw expired();
    waiting.lastSeenMs = this.p.clock.now();
    const wait = Math.min(request.wait ?? 0, MAX_SIGNAL_WAIT_MS);
    if (wait > 0) {
      // Listen before looking, so that nothing queued in between is missed.
      const woken = this.#wait(waiting.deviceUid, request.token, wait);
      try {
        const signals = await this.p.store.devices.pendingSignals(waiting.deviceUid);
        if (!signals.some((s) => s.seq > request.after)) await woken.promise;
      } finally {
        woken.cancel();
      }
    }
    return this.p.store.transaction(async () => {
      const found = await this.p.records.find(request.token);
      if ("refused" in found) return found.refused;
      const { session, device } = found;
      await this.p.store.devices.acknowledgeSignals(device.uid, request.after);
      const signals = (await this.p.store.devices.pendingSignals(device.uid))
        .filter((s) => s.seq > request.after)
        .slice(0, MAX_SIGNALS);
      const reply: SignalsReply = {
        v: PROTOCOL_VERSION,
        signals: signals.map((s) => ({ seq: s.seq, body: s.body, time: Math.floor(s.created / 1000) })),
        files: await this.p.records.pendingFiles(device.uid, session.secure),
        // A variable changed on the hub reaches the session held open (the module keeps it
        // only when it differs from what it has).
        env: await deviceEnvironment(this.p.store, device),
      };
      await this.p.records.account(session, bytes, reply);
      return reply;
    });
  }

  /** Resolves when the device's signals or notefiles change, `ms` pass on the hub clock, or the hub closes. */
  #wait(deviceUid: string, token: string, ms: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      const timer = this.p.clock.setTimer(() => done(), ms);
      const stop = this.p.notifier.listen(deviceUid, () => done());
      const done = () => {
        this.p.clock.clearTimer(timer);
        stop();
        this.#waits.delete(done);
        const ofToken = this.#byToken.get(token);
        ofToken?.delete(done);
        if (ofToken?.size === 0) this.#byToken.delete(token);
        resolve();
      };
      this.#waits.add(done);
      const ofToken = this.#byToken.get(token) ?? new Set();
      ofToken.add(done);
      this.#byToken.set(token, ofToken);
      cancel = done;
    });
    return { promise, cancel };
  }
}
