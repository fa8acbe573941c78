import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, Fleet, InProcessHub, parseWorkload } from "cardsim";

// Nobody reads a fleet member's log: its sessions and errors are counted from their outcomes and
// the replies to its requests. The module's default log keeps its lines in memory (a line or more
// every session), which at 10,000 modules for a day was heap that only grew; members log nowhere.

const WORKLOAD = parseWorkload(
  `
name: quiet
seed: quiet-logs
groups:
  - name: meters
    sync: { mode: periodic, outbound: 10, inbound: 60 }
    notefiles:
      - { file: meter.qo, every: 5m, body: { kwh: { $random: [0, 5] } } }
`,
  "quiet.yaml",
);

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

describe("a fleet's modules", () => {
  it("keep no log lines in memory however many sessions they run", async () => {
    const clock = new FakeClock();
    const hub = await InProcessHub.start({ clock });
    closers.push(() => hub.close());
    const fleet = await Fleet.start({
      modules: 3,
      workload: WORKLOAD,
      clock,
      hub: { connection: hub.connection(), api: hub },
    });
    closers.push(() => fleet.close());
    const summary = await fleet.run(2 * 60 * 60_000);
    expect(summary.sessions.ok).toBeGreaterThanOrEqual(3 * 10);
    expect(summary.sessions.failed).toBe(0);
    for (const member of fleet.members) {
      const log = member.rig.simulated.log as { lines?: readonly unknown[] };
      expect(log.lines ?? []).toHaveLength(0);
    }
  });
});
