import { describe, expect, it } from "vitest";
import { PromiseContext } from "../../../hub/store/sqlite/PromiseContext.js";

/** Lets every queued promise reaction run (a macrotask turn). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The store's transaction context (TransactionGate) without AsyncLocalStorage's async_hooks: the
 * value set by `run` must reach every await and `then` of the work it runs, and nothing else.
 */
describe("a promise context", () => {
  it("is seen after every await of the work it runs, however deep, and in then callbacks made there", async () => {
    const context = new PromiseContext<string>();
    const seen: (string | undefined)[] = [];
    const deep = async (n: number): Promise<void> => {
      await Promise.resolve();
      seen.push(context.getStore());
      if (n > 0) await deep(n - 1);
      await null;
      seen.push(context.getStore());
    };
    await context.run("tx", async () => {
      seen.push(context.getStore());
      await deep(3);
      await Promise.all([deep(0), turn().then(() => seen.push(context.getStore()))]);
      seen.push(context.getStore());
    });
    expect(seen.length).toBe(13);
    expect(seen.every((value) => value === "tx")).toBe(true);
    expect(context.getStore()).toBeUndefined();
    context.disable();
  });

  it("keeps two flows interleaving on the same promises each to its own value, and code started outside to none", async () => {
    const context = new PromiseContext<string>();
    const seen: Record<string, (string | undefined)[]> = { a: [], b: [], outside: [] };
    let release!: () => void;
    const shared = new Promise<void>((resolve) => (release = resolve));
    const outside = (async () => {
      for (let i = 0; i < 3; i++) {
        await shared;
        seen["outside"]!.push(context.getStore());
        await Promise.resolve();
      }
    })();
    const flow = (name: string) =>
      context.run(name, async () => {
        for (let i = 0; i < 3; i++) {
          await shared;
          seen[name]!.push(context.getStore());
          await turn();
        }
      });
    const both = Promise.all([flow("a"), flow("b")]);
    release();
    await Promise.all([both, outside]);
    expect(seen).toEqual({
      a: ["a", "a", "a"],
      b: ["b", "b", "b"],
      outside: [undefined, undefined, undefined],
    });
    context.disable();
  });

  it("keeps each context's value apart, nested or not, and a run with none hides only its own", async () => {
    const gateA = new PromiseContext<string>();
    const gateB = new PromiseContext<string>();
    const seen: string[] = [];
    const both = () => `${gateA.getStore() ?? "-"}/${gateB.getStore() ?? "-"}`;
    await gateA.run("a1", async () => {
      await null;
      await gateB.run("b1", async () => {
        await null;
        seen.push(both());
        await gateA.run(undefined, async () => {
          await null;
          seen.push(both());
        });
        seen.push(both());
      });
      seen.push(both());
    });
    seen.push(both());
    expect(seen).toEqual(["a1/b1", "-/b1", "a1/b1", "a1/-", "-/-"]);
    gateA.disable();
    gateB.disable();
  });

  it("does not reach a timer's callback started inside (only promises carry it), and works again after disable", async () => {
    const context = new PromiseContext<number>();
    let inTimer: number | undefined = -1;
    await context.run(1, async () => {
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          inTimer = context.getStore();
          resolve();
        }),
      );
      expect(context.getStore()).toBe(1);
    });
    expect(inTimer).toBeUndefined();
    context.disable();
    expect(context.getStore()).toBeUndefined();
    await context.run(2, async () => {
      await turn();
      expect(context.getStore()).toBe(2);
    });
    context.disable();
  });
});
