import type { Clock } from "../../core/Clock.js";

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

/**
 * Slows password guessing per username, on the hub's clock: after FREE_LOGIN_FAILURES failed
 * logins in a row, each further failure makes that username wait twice as long as the one before
 * (1 s, 2 s, 4 s, ... up to 15 minutes) before a password is checked again. A success clears it.
 * Per username rather than per address: a script retrying from many addresses is slowed the same.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, Failures>();

  constructor(private readonly clock: Clock) {}

  /** Milliseconds `username` must wait before its password is checked again; 0 when it may try now. */
  wait(username: string): number {
    const entry = this.#entry(username);
    return entry ? Math.max(0, entry.until - this.clock.now()) : 0;
  }

  failed(username: string): void {
    const key = username.toLowerCase();
    const now = this.clock.now();
    const entry = this.#entry(username) ?? { count: 0, last: now, until: 0 };
    entry.count++;
    entry.last = now;
    if (entry.count > FREE_LOGIN_FAILURES) {
      entry.until = now + Math.min(MAX_LOGIN_WAIT_MS, 1000 * 2 ** (entry.count - FREE_LOGIN_FAILURES - 1));
    }
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
    const entry = this.#failures.get(key);
    if (entry && this.clock.now() - entry.last >= FORGET_AFTER_MS) {
      this.#failures.delete(key);
      return undefined;
    }
    return entry;
  }
}
