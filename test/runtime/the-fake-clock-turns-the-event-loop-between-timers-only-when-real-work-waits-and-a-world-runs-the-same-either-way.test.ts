import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { FakeClock, realWorkIn, waitsOnRealWork } from "../../runtime/FakeClock.js";
import { InProcessHub } from "../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** An immediate queued by one timer, and the timer after it: which runs first. */
async function immediateOrTimer(clock: FakeClock): Promise<string[]> {
  const log: string[] = [];
  clock.setTimer(() => setImmediate(() => log.push("immediate")), 10);
  clock.setTimer(() => log.push("next timer"), 11);
  await clock.advance(20);
  log.push("advanced");
  await new Promise((resolve) => setImmediate(resolve));
  return log;
}

/**
 * One module on its own schedule (a sync every 5 minutes, a reading a minute before each) against
 * an in-process hub, for `hours` on `clock`: what the hub stored and what the module counted.
 */
async function world(clock: FakeClock, hours: number): Promise<unknown> {
  const hub = await InProcessHub.start({ clock, seed: 7 });
  const sim = await SimulatedModule.boot({ clock, seed: "settle", timeKnown: true, hub: hub.connection() });
  const sessions: string[] = [];
  sim.module.sync.onSession((o) => sessions.push(`${o.ok} ${o.started} ${o.ended} ${o.traffic.notes_sent}`));
  try {
    const set = await sim.module.request({ req: "hub.set", mode: "periodic", outbound: 5, inbound: 5 });
    expect(set?.["err"]).toBeUndefined();
    let n = 0;
    const reading = () => {
      clock.setTimer(reading, 5 * MINUTE);
      void sim.module.request({ req: "note.add", file: "sensors.qo", body: { temp: n++ } });
    };
    clock.setTimer(reading, 4 * MINUTE);
    await clock.advance(hours * 60 * MINUTE);
    await sim.module.sync.idle();
    const listed = await hub.request("GET", `/v1/projects/${hub.projectUid}/events`, undefined, {
      query: { pageSize: "1000" },
    });
    const events = (listed.body as { events: JsonObject[] }).events;
    const usage = await sim.module.request({ req: "card.usage.get" });
    const status = await sim.module.request({ req: "hub.sync.status" });
    return { sessions, events, usage, status, now: clock.now() };
  } finally {
    await sim.close();
    await hub.close();
  }
}

describe("FakeClock between timers", () => {
  it("lets an immediate queued by a timer run before the next timer when real work waits", async () => {
    expect(await immediateOrTimer(new FakeClock(START, { realWork: () => true }))).toEqual([
      "immediate",
      "next timer",
      "advanced",
    ]);
  });

  it("goes on without a turn of the event loop when nothing real waits, microtasks settled all the same", async () => {
    expect(await immediateOrTimer(new FakeClock(START, { realWork: () => false }))).toEqual([
      "next timer",
      "advanced",
      "immediate",
    ]);
    const clock = new FakeClock(START, { realWork: () => false });
    const seen: number[] = [];
    let depth = 0;
    clock.setTimer(() => {
      void (async () => {
        for (let i = 0; i < 1000; i++) {
          await Promise.resolve();
          depth++;
        }
      })();
    }, 5);
    clock.setTimer(() => seen.push(depth), 5);
    await clock.advance(5);
    expect(seen).toEqual([1000]);
  });

  it("counts I/O, handles, immediates and referenced Node timers as real work, standard output and error not", async () => {
    expect(realWorkIn([], () => [])).toBe(false);
    expect(realWorkIn(["PipeWrap", "TTYWrap"], () => [process.stdout, process.stderr])).toBe(false);
    for (const resource of [
      "Immediate",
      "Timeout",
      "TCPServerWrap",
      "TCPSocketWrap",
      "FSReqCallback",
      "MessagePort",
    ])
      expect(
        realWorkIn(["PipeWrap", resource], () => [process.stdout]),
        resource,
      ).toBe(true);
    // A pipe that is not standard output or error: a child process's, a socket's.
    expect(realWorkIn(["PipeWrap"], () => [process.stdout, {}])).toBe(true);
    // This process's own: a loopback server listening, an immediate waiting.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      expect(process.getActiveResourcesInfo()).toContain("TCPServerWrap");
      expect(waitsOnRealWork()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const immediate = setImmediate(() => undefined);
    expect(process.getActiveResourcesInfo()).toContain("Immediate");
    expect(waitsOnRealWork()).toBe(true);
    clearImmediate(immediate);
  });

  it("runs a module and its hub for a day to the same sessions, events and counters either way", async () => {
    const turning = await world(new FakeClock(START, { realWork: () => true }), 24);
    const light = await world(new FakeClock(START, { realWork: () => false }), 24);
    expect((turning as { sessions: string[] }).sessions).toHaveLength(288);
    expect((turning as { events: JsonObject[] }).events.length).toBeGreaterThan(288);
    expect(light).toEqual(turning);
  });
});
