import { createClock } from "@sinonjs/fake-timers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TimerHandle } from "../../core/Clock.js";
import { FakeClock } from "../../runtime/FakeClock.js";

const START = Date.UTC(2026, 0, 1);

/** The @sinonjs/fake-timers clock FakeClock replaced, behind the same methods: the reference. */
class SinonReference {
  readonly #clock = createClock(START);
  now = () => this.#clock.now;
  setTimer = (callback: () => void, ms: number) =>
    this.#clock.setTimeout(callback, ms) as unknown as TimerHandle;
  clearTimer = (handle: TimerHandle) => this.#clock.clearTimeout(handle as unknown as number);
  advance = async (ms: number) => void (await this.#clock.tickAsync(ms));
  runDue = () => this.advance(0);
  next = async () => {
    if (this.#clock.countTimers() === 0) return false;
    await this.#clock.nextAsync();
    return true;
  };
  pendingTimers = () => this.#clock.countTimers();
}

type AnyClock = Pick<
  FakeClock,
  "now" | "setTimer" | "clearTimer" | "advance" | "runDue" | "next" | "pendingTimers"
>;

/** What a timer does when it fires: schedule more (some after awaiting a promise chain), clear one. */
interface Action {
  readonly delays: readonly number[];
  readonly awaitDepth: number;
  readonly afterAwait: readonly number[];
  readonly clear: number | undefined;
}

const action = fc.record({
  delays: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })), { maxLength: 2 }),
  awaitDepth: fc.integer({ min: 0, max: 4 }),
  afterAwait: fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 1 }),
  clear: fc.option(fc.nat(40), { nil: undefined }),
});

/** Runs one scenario on `clock` and returns its trace: which timer fired when, and what the clock said between steps. */
async function trace(
  clock: AnyClock,
  initial: readonly number[],
  actions: readonly Action[],
  steps: readonly (number | "next" | "due")[],
): Promise<string[]> {
  const log: string[] = [];
  const handles: TimerHandle[] = [];
  let made = 0;
  const schedule = (ms: number): void => {
    const id = made++;
    handles.push(
      clock.setTimer(() => {
        log.push(`fire ${id} at ${clock.now() - START}`);
        const a = actions[id % actions.length];
        if (!a || made > 200) return;
        for (const d of a.delays) schedule(d);
        if (a.clear !== undefined && handles[a.clear]) clock.clearTimer(handles[a.clear]!);
        void (async () => {
          for (let i = 0; i < a.awaitDepth; i++) await Promise.resolve();
          for (const d of a.afterAwait) schedule(d);
        })();
      }, ms),
    );
  };
  for (const ms of initial) schedule(ms);
  for (const step of steps) {
    if (step === "next") log.push(`next ${await clock.next()}`);
    else if (step === "due") await clock.runDue();
    else await clock.advance(step);
    log.push(`now ${clock.now() - START} pending ${clock.pendingTimers()}`);
  }
  return log;
}

/**
 * Each behaviour both ways the clock goes on after a timer: with a turn of the event loop (what it
 * does when the process waits on real work) and from a `process.nextTick` alone (when it waits on
 * nothing real).
 */
describe.each([
  ["turning the event loop between timers", () => true],
  ["going on from a nextTick between timers", () => false],
])("FakeClock, %s", (_, realWork) => {
  const newClock = () => new FakeClock(START, { realWork });

  it("runs timers in the order of their times, and of scheduling at equal times", async () => {
    const clock = newClock();
    const fired: string[] = [];
    for (const [name, ms] of [
      ["b", 20],
      ["a", 10],
      ["c", 20],
      ["d", 0],
      ["e", 10],
    ] as const)
      clock.setTimer(() => fired.push(`${name}@${clock.now() - START}`), ms);
    await clock.advance(15);
    expect(fired).toEqual(["d@0", "a@10", "e@10"]);
    expect(clock.now() - START).toBe(15);
    await clock.advance(5);
    expect(fired).toEqual(["d@0", "a@10", "e@10", "b@20", "c@20"]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("settles promises between timers, so a timer set after awaits runs in the same advance", async () => {
    const clock = newClock();
    const fired: number[] = [];
    clock.setTimer(() => {
      void (async () => {
        for (let i = 0; i < 50; i++) await Promise.resolve();
        clock.setTimer(() => fired.push(clock.now() - START), 100);
      })();
    }, 100);
    clock.setTimer(() => fired.push(clock.now() - START), 150);
    await clock.advance(200);
    expect(fired).toEqual([150, 200]);
  });

  it("runs a 0 ms timer set while time advances 1 ms later, and one set outside at once", async () => {
    const clock = newClock();
    const at: number[] = [];
    clock.setTimer(() => at.push(clock.now() - START), 0);
    clock.setTimer(() => clock.setTimer(() => at.push(clock.now() - START), 0), 5);
    await clock.runDue();
    expect(at).toEqual([0]);
    await clock.advance(10);
    expect(at).toEqual([0, 6]);
  });

  it("clears a pending timer, ignores clearing one that ran, and counts what is pending", async () => {
    const clock = newClock();
    const fired: string[] = [];
    const a = clock.setTimer(() => fired.push("a"), 10);
    const b = clock.setTimer(() => fired.push("b"), 10);
    clock.setTimer(() => fired.push("c"), 30);
    expect(clock.pendingTimers()).toBe(3);
    clock.clearTimer(b);
    expect(clock.pendingTimers()).toBe(2);
    await clock.advance(20);
    clock.clearTimer(a);
    clock.clearTimer(b);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(20);
    expect(fired).toEqual(["a", "c"]);
  });

  it("jumps to the next timer with next(), and reports when none is pending", async () => {
    const clock = newClock();
    expect(await clock.next()).toBe(false);
    clock.setTimer(() => undefined, 5000);
    clock.setTimer(() => undefined, 5000);
    expect(await clock.next()).toBe(true);
    expect(clock.now() - START).toBe(5000);
    expect(clock.pendingTimers()).toBe(1);
  });

  it("runs the other timers when one throws, then rejects the advance with the first error", async () => {
    const clock = newClock();
    const fired: number[] = [];
    clock.setTimer(() => {
      throw new Error("first");
    }, 1);
    clock.setTimer(() => {
      throw new Error("second");
    }, 2);
    clock.setTimer(() => fired.push(3), 3);
    await expect(clock.advance(10)).rejects.toThrow("first");
    expect(fired).toEqual([3]);
    expect(clock.now() - START).toBe(10);
    await expect(clock.advance(-1)).rejects.toThrow(/Negative/);
  });

  it("runs a delay beyond 2^31-1 ms after 1 ms, and carries fractions of a ms", async () => {
    const clock = newClock();
    let fired = 0;
    clock.setTimer(() => fired++, 2 ** 31);
    await clock.advance(1);
    expect(fired).toBe(1);
    await clock.advance(0.6);
    await clock.advance(0.6);
    expect(clock.now() - START).toBe(2);
  });

  it("holds twenty thousand timers and runs them in order", async () => {
    const clock = newClock();
    let last = -1;
    let inOrder = true;
    for (let i = 0; i < 20_000; i++) {
      const at = (i * 7919) % 20_000;
      clock.setTimer(() => {
        if (clock.now() - START < last) inOrder = false;
        last = clock.now() - START;
      }, at);
    }
    await clock.advance(20_000);
    expect(inOrder).toBe(true);
    expect(last).toBe(19_999);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("fires the timers @sinonjs/fake-timers fired, at the same times, for any schedule (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 8 }),
        fc.array(action, { minLength: 1, maxLength: 8 }),
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 3000 }),
            fc.constant("next" as const),
            fc.constant("due" as const),
          ),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        async (initial, actions, steps) => {
          const ours = await trace(newClock(), initial, actions, steps);
          const theirs = await trace(new SinonReference(), initial, actions, steps);
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 150, seed: 26 },
    );
  });
});
