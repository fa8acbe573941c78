import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { promisesMadeBy } from "../../support/promiseCount.js";

/**
 * The module's JavaScript a request (issue 26): a `note.add` whose turn is free, counted in
 * promises made from the host's call to the reply, each one a step of the event loop's
 * microtasks. Before: the turn awaited even when it was handed over at once, the turn's task and
 * the transaction each in an async frame of their own, the handler awaited inside an async
 * wrapper though it answered at once, what follows a request in an async frame, and the restart
 * check awaited after every request (20 a note); after: 8.
 */
describe("a note.add whose turn is free", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let sim: SimulatedModule;

  beforeAll(async () => {
    sim = await SimulatedModule.boot({ clock, seed: "request-promises", timeKnown: true });
    for (let i = 0; i < 20; i++)
      await sim.module.request({ req: "note.add", file: "sensors.qo", body: { temp: i } });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("makes at most 8 promises a request, its reply unchanged", async () => {
    const replies: (Record<string, unknown> | undefined)[] = [];
    const promises = await promisesMadeBy(async () => {
      for (let i = 0; i < 100; i++)
        replies.push(await sim.module.request({ req: "note.add", file: "sensors.qo", body: { temp: i } }));
    });
    expect(replies.every((reply) => reply !== undefined && reply["total"] !== undefined)).toBe(true);
    expect(replies.at(-1)).toEqual({ total: 120 });
    // A few more over the hundred requests: work the module does now and then, not per request.
    expect(promises).toBeLessThanOrEqual(100 * 8 + 10);
  });
});
