import type { Clock } from "../../core/Clock.js";
import { limitSweeper, type ClusterStore } from "../store/ClusterStore.js";

/** Requests allowed per billing account. */
export interface RateLimits {
  perMinute: number;
  perDay: number;
}

/**
 * The hosted service's limits (the spec: 7 a minute and 10,200 a day per billing account). The
 * local hub has none unless asked (`--rate-limit hosted`): a developer's script must not stall.
 */
export const HOSTED_RATE_LIMITS: Readonly<RateLimits> = { perMinute: 7, perDay: 10_200 };

export type RateDecision =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; window: "minute" | "day" };

/**
 * Counts requests in a sliding window made of fixed buckets (the window's resolution): at most
 * `limit` requests in any `windowMs`, exact to one bucket.
 */
class SlidingWindow {
  readonly #ids: Float64Array;
  readonly #counts: Uint32Array;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly bucketMs: number,
  ) {
    const buckets = Math.ceil(windowMs / bucketMs);
    this.#ids = new Float64Array(buckets).fill(-1);
    this.#counts = new Uint32Array(buckets);
  }

  /** Milliseconds until one more request fits, 0 when it fits now. */
  wait(now: number): number {
    const current = Math.floor(now / this.bucketMs);
    const n = this.#ids.length;
    const live: { id: number; count: number }[] = [];
    let total = 0;
    for (let slot = 0; slot < n; slot++) {
      const id = this.#ids[slot]!;
      if (id > current - n && id <= current && this.#counts[slot]! > 0) {
        live.push({ id, count: this.#counts[slot]! });
        total += this.#counts[slot]!;
      }
    }
    if (total < this.limit) return 0;
    // Oldest buckets leave the window first; find the one whose departure makes room.
    live.sort((a, b) => a.id - b.id);
    let excess = total - this.limit + 1;
    for (const bucket of live) {
      excess -= bucket.count;
      if (excess <= 0) return (bucket.id + n) * this.bucketMs - now;
    }
    return this.windowMs;
  }

  record(now: number, count = 1): void {
    const id = Math.floor(now / this.bucketMs);
    const slot = id % this.#ids.length;
    if (this.#ids[slot] !== id) {
      this.#ids[slot] = id;
      this.#counts[slot] = 0;
    }
    this.#counts[slot]! += count;
  }

  /** The buckets still in the window at `now` as text (`id:count` by commas), for a shared store. */
  text(now: number): string {
    const current = Math.floor(now / this.bucketMs);
    const parts: string[] = [];
    for (let slot = 0; slot < this.#ids.length; slot++) {
      const id = this.#ids[slot]!;
      if (id > current - this.#ids.length && id <= current && this.#counts[slot]! > 0)
        parts.push(`${id}:${this.#counts[slot]}`);
    }
    return parts.join(",");
  }

  /** Puts back the buckets of `text` (as `text` wrote them; anything else is skipped). */
  load(text: string): this {
    for (const part of text.split(",")) {
      const [id, count] = part.split(":").map(Number);
      if (Number.isSafeInteger(id) && Number.isSafeInteger(count) && count! > 0)
        this.record(id! * this.bucketMs, count);
    }
    return this;
  }
}

/** An account's two windows: a minute in one-second buckets and a day in one-minute buckets. */
interface Windows {
  minute: SlidingWindow;
  day: SlidingWindow;
}

function newWindows(limits: RateLimits): Windows {
  return {
    minute: new SlidingWindow(limits.perMinute, 60_000, 1_000),
    day: new SlidingWindow(limits.perDay, 86_400_000, 60_000),
  };
}

/** Whether one more request fits both windows at `now`. */
function decide(windows: Windows, now: number): RateDecision {
  const minuteWait = windows.minute.wait(now);
  const dayWait = windows.day.wait(now);
  if (minuteWait > 0 || dayWait > 0) {
    const window = dayWait > minuteWait ? "day" : "minute";
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(Math.max(minuteWait, dayWait) / 1000)),
      window,
    };
  }
  return { allowed: true };
}

const ALLOWED: RateDecision = { allowed: true };

/**
 * The API's limits per billing account as the router asks them: in this process's memory
 * (RateLimiter) or in the store several hub processes share (SharedRateLimiter). Refused requests
 * are not counted: `check` counts nothing (the router asks it before the caller's role), `take`
 * counts one request if it fits (once every other check passed).
 */
export interface ApiRateLimiter {
  readonly limits: RateLimits | false;
  check(account: string): RateDecision | Promise<RateDecision>;
  take(account: string): RateDecision | Promise<RateDecision>;
}

function checkLimits(limits: RateLimits | false): void {
  if (!limits) return;
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`rate limit ${name} must be a positive integer`);
  }
}

/**
 * Per-account request limits on the injected clock, in memory (one hub process). Windows slide: a
 * minute in one-second buckets and a day in one-minute buckets. Refused requests are not counted
 * (neither those over the limit nor, through check/take, those refused for the caller's role).
 * State lives in memory, so it starts afresh when the hub restarts.
 */
export class RateLimiter implements ApiRateLimiter {
  readonly #accounts = new Map<string, Windows>();

  constructor(
    private readonly clock: Clock,
    readonly limits: RateLimits | false,
  ) {
    checkLimits(limits);
  }

  /** Counts one request of `account` if it is within the limits. */
  take(account: string): RateDecision {
    const decision = this.check(account);
    if (decision.allowed) this.record(account);
    return decision;
  }

  /**
   * Whether one more request of `account` is within the limits, without counting it: a request
   * refused for another reason afterwards (the caller's role) is then never counted.
   */
  check(account: string): RateDecision {
    if (!this.limits) return ALLOWED;
    return decide(this.#windows(account, this.limits), this.clock.now());
  }

  /** Counts one request of `account` (after `check` allowed it). */
  record(account: string): void {
    if (!this.limits) return;
    const windows = this.#windows(account, this.limits);
    const now = this.clock.now();
    windows.minute.record(now);
    windows.day.record(now);
  }

  #windows(account: string, limits: RateLimits): Windows {
    let windows = this.#accounts.get(account);
    if (!windows) this.#accounts.set(account, (windows = newWindows(limits)));
    return windows;
  }
}

/**
 * The same limits kept in the store several hub processes share (ClusterStore.updateLimits): a
 * round-robin in front of the processes gives an account no more requests than one process would.
 * An account's windows are one state, `minute buckets|day buckets`, kept a day after its last
 * request.
 */
export class SharedRateLimiter implements ApiRateLimiter {
  readonly #sweep: (now: number) => void;

  constructor(
    private readonly clock: Clock,
    readonly limits: RateLimits | false,
    private readonly cluster: ClusterStore,
  ) {
    checkLimits(limits);
    this.#sweep = limitSweeper(cluster);
  }

  async check(account: string): Promise<RateDecision> {
    if (!this.limits) return ALLOWED;
    const [state] = await this.cluster.readLimits([rateKey(account)]);
    const now = this.clock.now();
    return decide(loadWindows(this.limits, state), now);
  }

  async take(account: string): Promise<RateDecision> {
    const limits = this.limits;
    if (!limits) return ALLOWED;
    const now = this.clock.now();
    this.#sweep(now);
    return this.cluster.updateLimits<RateDecision>([rateKey(account)], ([state]) => {
      const windows = loadWindows(limits, state);
      const decision = decide(windows, now);
      if (!decision.allowed) return { result: decision };
      windows.minute.record(now);
      windows.day.record(now);
      const data = `${windows.minute.text(now)}|${windows.day.text(now)}`;
      return { states: [{ data, expires: now + 86_400_000 }], result: decision };
    });
  }
}

const rateKey = (account: string): string => `api\n${account}`;

function loadWindows(limits: RateLimits, state: string | undefined): Windows {
  const windows = newWindows(limits);
  if (state === undefined) return windows;
  const [minute = "", day = ""] = state.split("|");
  windows.minute.load(minute);
  windows.day.load(day);
  return windows;
}

/**
 * Parses `off`, `hosted` (the hosted service's limits) or `7/min,10200/day` (either part may be
 * left out; the other keeps the hosted value).
 */
export function parseRateLimits(text: string): RateLimits | false {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "off" || trimmed === "none" || trimmed === "0") return false;
  if (trimmed === "hosted") return { ...HOSTED_RATE_LIMITS };
  const limits = { ...HOSTED_RATE_LIMITS };
  for (const part of trimmed.split(",")) {
    const m = /^(\d+)\s*\/\s*(min|minute|day)$/.exec(part.trim());
    if (!m || Number(m[1]) < 1) {
      throw new Error(`rate limit "${part.trim()}" is not N/min or N/day (or "hosted" or "off")`);
    }
    if (m[2] === "day") limits.perDay = Number(m[1]);
    else limits.perMinute = Number(m[1]);
  }
  return limits;
}
