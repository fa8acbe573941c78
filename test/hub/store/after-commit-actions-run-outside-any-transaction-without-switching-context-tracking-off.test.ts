import { afterEach, describe, expect, it, vi } from "vitest";
import { PromiseContext } from "../../../hub/store/sqlite/PromiseContext.js";
import { TransactionGate } from "../../../hub/store/sqlite/TransactionGate.js";

/** A gate over a database that only records what it is asked to do. */
function recordingGate(): { gate: TransactionGate; steps: string[] } {
  const steps: string[] = [];
  const gate = new TransactionGate({
    begin: (depth) => steps.push(`begin ${depth}`),
    commit: (depth) => {
      steps.push(`commit ${depth}`);
    },
    rollback: (depth) => steps.push(`rollback ${depth}`),
  });
  return { gate, steps };
}

describe("after-commit actions (a synced batch's events told to routes, monitors and fleets)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("run once the transaction committed, outside it: their store calls and transactions are new ones", async () => {
    const { gate, steps } = recordingGate();
    const seen: string[] = [];
    await gate.transaction(async () => {
      gate.afterCommit(() => {
        seen.push(`action after ${steps.at(-1)}`);
        // No transaction around it: an action of its own runs at once.
        gate.afterCommit(() => seen.push("nested action at once"));
        // A transaction it starts is an outermost one, and so is one its promises start later.
        void gate.transaction(async () => {
          seen.push(`own transaction: ${steps.at(-1)}`);
        });
        void Promise.resolve().then(() =>
          gate.transaction(async () => seen.push(`later transaction: ${steps.at(-1)}`)),
        );
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      "action after commit 0",
      "nested action at once",
      "own transaction: begin 0",
      "later transaction: begin 0",
    ]);
    expect(steps).toEqual(["begin 0", "commit 0", "begin 0", "commit 0", "begin 0", "commit 0"]);
  });

  it("leave the context tracking on between transactions in a row (switching it costs every commit)", async () => {
    const disable = vi.spyOn(PromiseContext.prototype, "disable");
    const { gate } = recordingGate();
    let told = 0;
    for (let i = 0; i < 20; i++) {
      await gate.transaction(async () => {
        gate.afterCommit(() => told++);
      });
    }
    expect(told).toBe(20);
    expect(disable).not.toHaveBeenCalled();
  });
});
