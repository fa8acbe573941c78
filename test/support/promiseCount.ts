import { createHook } from "node:async_hooks";

/**
 * How many promises the process makes while `work` runs (each one a step of the event loop's
 * microtasks, and a call of every promise hook): what the tests of a session's JavaScript count.
 */
export async function promisesMadeBy(work: () => Promise<void>): Promise<number> {
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") promises++;
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return promises;
}
