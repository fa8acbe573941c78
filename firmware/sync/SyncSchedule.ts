import type { TimerHandle } from "../../core/Clock.js";
import {
  DEFAULT_ON_SECONDS,
  effectiveMode,
  effectivePeriods,
  hubSettings,
  type SyncMode,
} from "../config/HubConfig.js";
import type { ModuleCore } from "../ModuleCore.js";
import { pendingOutbound } from "./SyncState.js";
import { PenaltyBox, type BoxState, type ConnectFailure } from "./PenaltyBox.js";
import type { SessionOutcome, SyncEngine } from "./SyncEngine.js";

/** Configuration record of the periodic cadence (`ScheduleRecord`): survives a restart. */
export const SCHEDULE_KEY = "sync.schedule";
/**
 * Minutes of each continuous session when `hub.set duration` is not given. The public reference
 * gives no default (the schema's continuous-mode sample uses 240); ours, documented in
 * docs/module.md.
 */
export const DEFAULT_DURATION_MINUTES = 240;
/** A continuous session that failed for another reason than a penalty box is tried again after this. */
export const CONTINUOUS_RETRY_MS = 15 * 60_000;

const MINUTE = 60_000;

/** The cadence's next check after one made `now`: `interval` minutes on, or the next multiple of it when aligned. */
function checkAfter(now: number, interval: number, align: boolean): number {
  return align ? (Math.floor(now / (interval * MINUTE)) + 1) * interval * MINUTE : now + interval * MINUTE;
}

/** The periodic checks last made, module clock ms: the cadence goes on from them after a restart. */
export interface ScheduleRecord {
  readonly outbound?: number;
  readonly inbound?: number;
}

/** Why the schedule acts next. */
export type ScheduleReason =
  /** Pending outbound changes, at the `outbound` cadence. */
  | "outbound"
  /** The `inbound` cadence: a sync whatever is pending. */
  | "inbound"
  /** Continuous mode without a session open: open one. */
  | "continuous"
  /** Continuous mode's `duration` is over: close the session and open a new one. */
  | "renew"
  /** A temporary continuous session (`hub.set on`) is over. */
  | "temporary-end"
  /** Notefiles asked for a sync (`sync:true`) while a penalty box held it. */
  | "note";

export interface NextSync {
  /** Module clock ms. */
  readonly at: number;
  readonly why: ScheduleReason;
  /** A penalty box put it off until `at`. */
  readonly boxed?: boolean;
}

/** What the schedule needs of the module. */
export interface ScheduleHost extends ModuleCore {
  readonly sync: SyncEngine;
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
  syncRequests(): ReadonlySet<string>;
}

/**
 * When the module syncs by itself (docs/module.md "Sync modes and the schedule"): the periodic
 * cadences, continuous sessions and their renewal, temporary continuous sessions, the USB/line
 * power policies, and the penalty boxes that hold attempts back. One timer at the next due
 * instant, planned again whenever something it depends on changes (settings, supply, radio, a
 * session's end, a box opening). RAM, but for the cadence's last checks (flash).
 */
export class SyncSchedule {
  readonly #host: ScheduleHost;
  readonly penalty: PenaltyBox;
  #timer: TimerHandle | undefined;
  #timerAt: number | undefined;
  #next: NextSync | undefined;
  #disposed = false;
  readonly #unsubscribe: (() => void)[] = [];
  /** The cadence's next checks (module clock ms), for the settings they were planned with. */
  #due: { outbound?: number; inbound?: number; key: string } = { key: "" };
  #hadPending = false;
  #temporaryUntil: number | undefined;
  #heldSince: number | undefined;
  #retryAt = 0;
  /** Timers this schedule set (a guard against polling). */
  timersSet = 0;

  constructor(host: ScheduleHost) {
    this.#host = host;
    this.penalty = new PenaltyBox(() => host.notebox);
  }

  /** Follows the engine, the radio and the supply, and plans the first sync. */
  start(): void {
    const host = this.#host;
    host.sync.governBy({ mode: () => this.mode(), mayStart: () => this.boxed() === undefined });
    this.#unsubscribe.push(host.sync.onSession((outcome) => this.#sessionEnded(outcome)));
    this.#unsubscribe.push(host.sync.onChange(() => this.plan()));
    this.#unsubscribe.push(host.radio.onChange(() => this.plan()));
    const power = host.power.onChange?.(() => this.plan());
    if (power) this.#unsubscribe.push(power);
    this.plan();
  }

  dispose(): void {
    this.#disposed = true;
    this.#clear();
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /** The mode in force: the configured one, a USB/line-power policy, or a temporary continuous session. */
  mode(): SyncMode {
    const host = this.#host;
    const base = effectiveMode(hubSettings(host), host.voltage.now().usb);
    if (this.#temporaryUntil !== undefined && this.#temporaryUntil > host.clock.now()) {
      if (base === "periodic" || base === "minimum") return "continuous";
    }
    return base;
  }

  /** The next sync the schedule will start, and why (undefined: none planned). */
  nextSync(): NextSync | undefined {
    return this.#next;
  }

  /** The penalty box the module is in now, if any. */
  boxed(): BoxState | undefined {
    return this.penalty.boxed(this.#host.clock.now());
  }

  /** A temporary continuous session is running now (`hub.set on`). */
  get temporary(): boolean {
    return this.#temporaryUntil !== undefined && this.#temporaryUntil > this.#host.clock.now();
  }

  /**
   * `hub.set on`: a session held open for `seconds` (default 300), then back to the mode.
   * Ignored in continuous mode (nothing to add) and in off and DFU modes (no network).
   */
  temporaryOn(seconds = DEFAULT_ON_SECONDS): void {
    const host = this.#host;
    const base = effectiveMode(hubSettings(host), host.voltage.now().usb);
    if (base !== "periodic" && base !== "minimum") return;
    this.#temporaryUntil = host.clock.now() + seconds * 1000;
    this.plan();
  }

  /** `hub.set off`: a temporary continuous session ends now. */
  temporaryOff(): void {
    if (this.#temporaryUntil === undefined) return;
    this.#temporaryUntil = undefined;
    this.#endTemporary();
  }

  /** Opens penalty boxes (`hub.sync allow`, `hub.log sync`, `card.wireless.penalty reset`). */
  lift(kinds: readonly ConnectFailure[]): void {
    this.penalty.lift(kinds);
    this.plan();
  }

  /** Plans the next sync again and sets the one timer for it. */
  plan(): void {
    if (this.#disposed) return;
    // Out of continuous mode (`hub.set mode:periodic|minimum|off|dfu`, a USB policy on battery)
    // the session held open ends now, not when its wait on the hub next returns: hub.set.req's
    // `dfu` "is effectively the same as `off` in terms of the Notecard's network and Notehub
    // connections", and dfu.get needs the session gone.
    const mode = this.mode();
    if (mode !== "continuous" && this.#host.sync.isOnline)
      void this.#host.sync.endHeld("mode changed", false);
    const now = this.#host.clock.now();
    const next = this.#compute(now, mode);
    this.#next = next;
    if (!next) {
      this.#clear();
      return;
    }
    const at = Math.max(now, next.at);
    if (this.#timer !== undefined && this.#timerAt === at) return;
    this.#clear();
    this.#timerAt = at;
    this.timersSet++;
    this.#timer = this.#host.clock.setTimer(() => {
      this.#timer = this.#timerAt = undefined;
      this.#fire();
    }, at - now);
  }

  #clear(): void {
    if (this.#timer !== undefined) this.#host.clock.clearTimer(this.#timer);
    this.#timer = this.#timerAt = undefined;
  }

  #record(): ScheduleRecord {
    return this.#host.notebox.config<ScheduleRecord>(SCHEDULE_KEY) ?? {};
  }

  /**
   * `mode`: `this.mode()` as the caller read it (an expired temporary session, the one thing this
   * clears first, does not count in it).
   */
  #compute(now: number, mode: SyncMode): NextSync | undefined {
    const host = this.#host;
    const engine = host.sync;
    if (this.#temporaryUntil !== undefined && this.#temporaryUntil <= now && !engine.isOnline)
      this.#temporaryUntil = undefined;
    if (!engine.isOnline) this.#heldSince = undefined;
    const candidates: NextSync[] = [];
    if (this.#temporaryUntil !== undefined)
      candidates.push({ at: this.#temporaryUntil, why: "temporary-end" });
    const connecting: NextSync[] = [];
    if (mode === "continuous") {
      if (!engine.isOnline && !engine.running) {
        connecting.push({ at: Math.max(now, this.#retryAt), why: "continuous" });
      } else if (engine.isOnline && !this.temporary && this.#heldSince !== undefined) {
        const minutes = hubSettings(host).duration ?? DEFAULT_DURATION_MINUTES;
        connecting.push({ at: this.#heldSince + minutes * MINUTE, why: "renew" });
      }
    }
    if (mode === "periodic" || mode === "continuous") {
      const due = this.#cadence(now);
      const pending = pendingOutbound(host.notebox) > 0;
      if (due.outbound !== undefined) {
        // Nothing was pending at the checks that passed: the next check is the next one ahead.
        if (pending && !this.#hadPending && due.outbound <= now)
          due.outbound = this.#ahead(due.outbound, this.#periods().outbound, now + 1);
        if (pending) connecting.push({ at: due.outbound, why: "outbound" });
      }
      this.#hadPending = pending;
      if (due.inbound !== undefined) connecting.push({ at: due.inbound, why: "inbound" });
      if (host.syncRequests().size > 0 && !engine.running) connecting.push({ at: now, why: "note" });
    }
    const box = this.penalty.boxed(now);
    for (const c of connecting) {
      candidates.push(box && box.until > c.at ? { at: box.until, why: c.why, boxed: true } : c);
    }
    let best: NextSync | undefined;
    for (const c of candidates) if (!best || c.at < best.at) best = c;
    return best;
  }

  #periods(): { outbound: number; inbound: number } {
    return effectivePeriods(this.#host);
  }

  /** The cadence's next checks, planned again when the intervals or `align` change. */
  #cadence(now: number): { outbound?: number; inbound?: number } {
    const periods = this.#periods();
    const align = hubSettings(this.#host).align === true;
    const key = `${periods.outbound}/${periods.inbound}/${align}`;
    if (this.#due.key !== key) {
      const record = this.#record();
      const first = (interval: number, last: number | undefined): number | undefined => {
        if (interval <= 0) return undefined;
        const ms = interval * MINUTE;
        if (align) return (Math.floor(Math.max(now, last ?? now) / ms) + 1) * ms;
        return last === undefined ? now + ms : this.#ahead(last + ms, interval, now);
      };
      this.#due = {
        key,
        outbound: first(periods.outbound, record.outbound),
        inbound: first(periods.inbound, record.inbound),
      };
      // The cadence starts now where flash has none: a restart goes on from here.
      const start: { outbound?: number; inbound?: number } = {};
      if (periods.outbound > 0 && record.outbound === undefined) start.outbound = now;
      if (periods.inbound > 0 && record.inbound === undefined) start.inbound = now;
      if (Object.keys(start).length > 0) this.#save(start);
    }
    return this.#due;
  }

  /** The first check of the cadence through `due` (every `interval` minutes) not before `now`. */
  #ahead(due: number, interval: number, now: number): number {
    if (due >= now) return due;
    const ms = interval * MINUTE;
    return due + Math.ceil((now - due) / ms) * ms;
  }

  /** In a turn: the cadence's last checks kept in flash. */
  #keep(change: ScheduleRecord): void {
    this.#host.notebox.setConfig(SCHEDULE_KEY, { ...this.#record(), ...change });
  }

  #save(change: ScheduleRecord): void {
    const host = this.#host;
    host
      .exclusive(() => this.#keep(change))
      .catch((error: unknown) =>
        host.log.warn("could not keep the sync cadence", { error: String((error as Error)?.message) }),
      );
  }

  #fire(): void {
    if (this.#disposed) return;
    const host = this.#host;
    const engine = host.sync;
    const now = host.clock.now();
    const next = this.#compute(now, this.mode());
    if (!next || next.at > now) {
      this.plan();
      return;
    }
    switch (next.why) {
      case "temporary-end":
        this.#temporaryUntil = undefined;
        this.#endTemporary();
        return;
      case "renew":
        this.#heldSince = undefined;
        void engine.endHeld("session duration over", true);
        break;
      case "continuous":
        engine.request({ why: "continuous" });
        break;
      case "note":
        engine.noticeSyncRequests();
        break;
      case "outbound":
      case "inbound": {
        const due = this.#due;
        const periods = this.#periods();
        const align = hubSettings(host).align === true;
        const pending = pendingOutbound(host.notebox) > 0;
        const inbound = due.inbound !== undefined && due.inbound <= now;
        const outbound = due.outbound !== undefined && due.outbound <= now;
        const change: { outbound?: number; inbound?: number } = {};
        if (inbound) {
          due.inbound = checkAfter(now, periods.inbound, align);
          change.inbound = now;
        }
        if (outbound) {
          due.outbound = checkAfter(now, periods.outbound, align);
          change.outbound = now;
        }
        // The checks made are kept with the session they start (in its first turn), else now.
        const keep = this.#keep.bind(this, change);
        if (inbound) engine.request({ why: "inbound", keep });
        else if (outbound && pending) engine.request({ why: "outbound", out: true, keep });
        else this.#save(change);
        break;
      }
    }
    this.plan();
  }

  #endTemporary(): void {
    const engine = this.#host.sync;
    const base = this.mode();
    if (base !== "continuous" && engine.isOnline) void engine.endHeld("temporary session over", false);
    this.plan();
  }

  #sessionEnded(outcome: SessionOutcome): void {
    const now = this.#host.clock.now();
    if (outcome.ok) this.penalty.connected();
    else if (outcome.connectFailure) this.penalty.failed(outcome.connectFailure, now);
    if (outcome.held) this.#heldSince ??= outcome.ended;
    else this.#heldSince = undefined;
    // The registration box alone says when to try again; other failures wait a while.
    this.#retryAt = outcome.ok || outcome.connectFailure === "registration" ? 0 : now + CONTINUOUS_RETRY_MS;
    this.plan();
  }
}
