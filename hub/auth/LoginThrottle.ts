import type { Clock } from "../../core/Clock.js";
import { limitSweeper, type ClusterStore } from "../store/ClusterStore.js";

/** Failed logins a username may have before its next attempts are slowed. */
export const FREE_LOGIN_FAILURES = 5;
/** The longest a username is made to wait (15 minutes). */
export const MAX_LOGIN_WAIT_MS = 15 * 60_000;
/** A username's failures are forgotten after this long without one (an hour). */
const FORGET_AFTER_MS = 60 * 60_000;
/** Usernames remembered at most (oldest forgotten first), so guessing names cannot grow memory. */
const MAX_USERNAMES = 10_000;

interface Failures {
  count: number;
  last: number;
  until: number;
}

/** The failures after one more at `now`: past the free ones, each doubles the wait (1 s, 2 s, ...). */
function oneMore(entry: Failures | undefined, now: number): Failures {
  const count = (entry?.count ?? 0) + 1;
  const until =
    count > FREE_LOGIN_FAILURES
      ? now + Math.min(MAX_LOGIN_WAIT_MS, 1000 * 2 ** (count - FREE_LOGIN_FAILURES - 1))
      : (entry?.until ?? 0);
  return { count, last: now, until };
}

/** The failures still remembered at `now` (forgotten an hour after the last). */
const remembered = (entry: Failures | undefined, now: number): Failures | undefined =>
  entry && now - entry.last < FORGET_AFTER_MS ? entry : undefined;

const waitOf = (entry: Failures | undefined, now: number): number =>
  entry ? Math.max(0, entry.until - now) : 0;

/**
 * Slows guessing of a secret per name (a username's password, a device's PIN), on the hub's clock:
 * after FREE_LOGIN_FAILURES failed attempts in a row, each further failure makes that name wait
 * twice as long as the one before (1 s, 2 s, 4 s, ... up to 15 minutes) before a guess is checked
 * again. A success clears it. Per name rather than per address: a script retrying from many
 * addresses is slowed the same. Kept in memory (LoginThrottle) or in the store several hub
 * processes share (SharedLoginThrottle).
 */
export interface GuessThrottle {
  /** Milliseconds `name` must wait before its guess is checked again; 0 when it may try now. */
  wait(name: string): number | Promise<number>;
  failed(name: string): void | Promise<void>;
  succeeded(name: string): void | Promise<void>;
}

/** The throttle in this process's memory (one hub process). */
export class LoginThrottle implements GuessThrottle {
  readonly #failures = new Map<string, Failures>();

  constructor(private readonly clock: Clock) {}

  wait(username: string): number {
    return waitOf(this.#entry(username), this.clock.now());
  }

  failed(username: string): void {
    const key = username.toLowerCase();
    const entry = oneMore(this.#entry(username), this.clock.now());
    this.#failures.delete(key);
    this.#failures.set(key, entry);
    if (this.#failures.size > MAX_USERNAMES) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
  }

  succeeded(username: string): void {
    this.#failures.delete(username.toLowerCase());
  }

  #entry(username: string): Failures | undefined {
    const key = username.toLowerCase();
    const entry = remembered(this.#failures.get(key), this.clock.now());
    if (!entry) this.#failures.delete(key);
    return entry;
  }
}

/**
 * The throttle in the store several hub processes share (ClusterStore.updateLimits), under
 * `kind` (`login`, `pin`): guesses sent round-robin to the processes are slowed as by one.
 */
export class SharedLoginThrottle implements GuessThrottle {
  readonly #sweep: (now: number) => void;

  constructor(
    private readonly clock: Clock,
    private readonly cluster: ClusterStore,
    private readonly kind: string,
  ) {
    this.#sweep = limitSweeper(cluster);
  }

  async wait(name: string): Promise<number> {
    const [state] = await this.cluster.readLimits([this.#key(name)]);
    const now = this.clock.now();
    return waitOf(remembered(failuresOf(state), now), now);
  }

  async failed(name: string): Promise<void> {
    const now = this.clock.now();
    this.#sweep(now);
    await this.cluster.updateLimits([this.#key(name)], ([state]) => {
      const entry = oneMore(remembered(failuresOf(state), now), now);
      const data = `${entry.count} ${entry.last} ${entry.until}`;
      return { states: [{ data, expires: now + FORGET_AFTER_MS }], result: undefined };
    });
  }

  async succeeded(name: string): Promise<void> {
    const key = this.#key(name);
    // Most successes follow no failure: nothing to clear, and nothing locked to find it out.
    const [state] = await this.cluster.readLimits([key]);
    if (state === undefined) return;
    await this.cluster.updateLimits([key], () => ({ states: [{ data: "", expires: 0 }], result: undefined }));
  }

  #key(name: string): string {
    return `${this.kind}\n${name.toLowerCase()}`;
  }
}

/** The failures as SharedLoginThrottle keeps them ("count last until"), or none. */
function failuresOf(state: string | undefined): Failures | undefined {
  if (state === undefined) return undefined;
  const [count, last, until] = state.split(" ").map(Number);
  if (!Number.isFinite(count) || !Number.isFinite(last) || !Number.isFinite(until)) return undefined;
  return { count: count!, last: last!, until: until! };
}
