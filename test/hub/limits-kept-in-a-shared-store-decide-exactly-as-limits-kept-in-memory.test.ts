import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "../support/fastCheckSeed.js";
import { LoginThrottle, SharedLoginThrottle } from "../../hub/auth/LoginThrottle.js";
import { RateLimiter, SharedRateLimiter } from "../../hub/auth/RateLimiter.js";
import type { ClusterStore, LimitState } from "../../hub/store/ClusterStore.js";
import { FakeClock } from "../../runtime/FakeClock.js";

/**
 * The limiters' part of a ClusterStore, in memory: what PostgreSQL keeps in `limit_states` (a
 * text under a key, undefined for none), with the same contract (an empty text is none).
 */
function limitStates(): { cluster: ClusterStore; states: Map<string, LimitState> } {
  const states = new Map<string, LimitState>();
  const read = (keys: readonly string[]) =>
    keys.map((k) => (states.get(k)?.data ? states.get(k)!.data : undefined));
  const cluster = {
    readLimits: async (keys: readonly string[]) => read(keys),
    updateLimits: async <T>(
      keys: readonly string[],
      decide: (s: (string | undefined)[]) => { states?: readonly (LimitState | undefined)[]; result: T },
    ) => {
      const decided = decide(read(keys));
      decided.states?.forEach((state, i) => state && states.set(keys[i]!, state));
      return decided.result;
    },
    pruneLimits: async (now: number) => {
      for (const [key, state] of states) if (state.expires < now) states.delete(key);
    },
  } as unknown as ClusterStore;
  return { cluster, states };
}

/** Steps of a client: a request (or a guess, right or wrong) of an account, or time passing. */
const steps = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ account: fc.constantFrom("a", "b"), right: fc.boolean() }), weight: 6 },
    { arbitrary: fc.record({ wait: fc.integer({ min: 1, max: 40_000 }) }), weight: 3 },
    { arbitrary: fc.record({ wait: fc.integer({ min: 1, max: 7_200_000 }) }), weight: 1 },
  ),
  { minLength: 50, maxLength: 250 },
);

/**
 * Several hub processes count in the store (SharedRateLimiter, SharedLoginThrottle) what one process
 * counts in memory (RateLimiter, LoginThrottle): the account's windows and a name's failures are
 * written as text and read back at each request. Whatever the requests and the time between them,
 * both give the same answers, Retry-After included.
 */
describe("limits kept in a shared store", () => {
  it("decide every request as the rate limiter in memory does", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (script) => {
        const clock = new FakeClock();
        const limits = { perMinute: 4, perDay: 30 };
        const memory = new RateLimiter(clock, limits);
        const shared = new SharedRateLimiter(clock, limits, limitStates().cluster);
        for (const step of script) {
          if ("wait" in step) {
            await clock.advance(step.wait);
            continue;
          }
          expect(await shared.check(step.account)).toEqual(memory.check(step.account));
          expect(await shared.take(step.account)).toEqual(memory.take(step.account));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("slow guesses as the throttle in memory does", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (script) => {
        const clock = new FakeClock();
        const memory = new LoginThrottle(clock);
        const shared = new SharedLoginThrottle(clock, limitStates().cluster, "login");
        for (const step of script) {
          if ("wait" in step) {
            await clock.advance(step.wait);
            continue;
          }
          const wait = memory.wait(step.account);
          expect(await shared.wait(step.account.toUpperCase())).toBe(wait);
          if (wait > 0) continue;
          if (step.right) {
            memory.succeeded(step.account);
            await shared.succeeded(step.account);
          } else {
            memory.failed(step.account);
            await shared.failed(step.account);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("forget a state once it can hold nothing back", async () => {
    const clock = new FakeClock();
    const { cluster, states } = limitStates();
    const limiter = new SharedRateLimiter(clock, { perMinute: 1, perDay: 100 }, cluster);
    await clock.advance(60_000);
    expect((await limiter.take("a")).allowed).toBe(true);
    expect(await limiter.check("a")).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    expect(states.get("api\na")?.expires).toBe(clock.now() + 86_400_000);
    // The next sweep (at most once a minute, as the limiter is used) after a day takes it out.
    await clock.advance(86_400_001);
    await limiter.take("b");
    await Promise.resolve();
    expect(states.has("api\na")).toBe(false);
  });
});
