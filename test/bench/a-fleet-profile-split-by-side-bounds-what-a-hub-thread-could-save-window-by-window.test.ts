import { describe, expect, it } from "vitest";
import { splitBySide, type CpuProfile } from "../../bench/profileSides.js";

// bench/fleet-split.ts's arithmetic on a profile made by hand: samples are put to the hub's side
// by the innermost frame of the repository's hub/ or firmware/, to the group commit when
// SqliteConnection.commitGroup is on the stack, and each commit window is laid out on two threads
// (the commit alone, then the longer side with its share of the GC).

const ROOT = "file:///repo/";
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

/** root > (program stack) ... ; the ids name what a sample is. */
const NODES = [
  frame(1, "(root)", "", [2, 3, 4, 5, 8]),
  // a module's request handler calling the link, which calls into the hub's sync service
  frame(2, "exchange", `${ROOT}firmware/radio/SimHubLink.ts`, [6]),
  frame(3, "(garbage collector)", ""),
  frame(4, "(idle)", ""),
  frame(5, "advance", `${ROOT}runtime/FakeClock.ts`, [7]),
  frame(6, "handle", `${ROOT}hub/sync/SyncService.ts`, [9]),
  frame(7, "commitGroup", `${ROOT}hub/store/sqlite/SqliteConnection.ts`, [10]),
  frame(8, "addNote", `${ROOT}firmware/storage/Notes.ts`, [11]),
  frame(9, "parse", `${ROOT}protocol/messages.ts`),
  frame(10, "run", "file:///repo/node_modules/better-sqlite3/lib/methods/wrappers.js"),
  frame(11, "md5", `${ROOT}core/md5.ts`),
];
const MODULE = 11; // core code under firmware: the modules'
const HUB = 9; // protocol code under the hub: the hub's
const GC = 3;
const IDLE = 4;
const COMMIT = 10;
const FLEET = 5; // the fleet's clock: the modules' thread

/** A profile whose samples are 1 ms apart (each standing for the 1 ms before it). */
function profile(samples: number[]): CpuProfile {
  return { nodes: NODES, samples, timeDeltas: samples.map(() => 1000) };
}

describe("splitting a fleet's profile by side", () => {
  it("puts each sample to its side by the innermost hub or firmware frame, and a commit by its caller", () => {
    const split = splitBySide(
      profile([COMMIT, MODULE, HUB, HUB, GC, FLEET, IDLE, COMMIT, COMMIT, MODULE]),
      ROOT,
    );
    // From the first commit to the last: what follows the last (the drain) is left out.
    expect(split.ms).toEqual({ hub: 2, commit: 3, modules: 2, gc: 1, idle: 1 });
    expect(split.windows).toBe(2);
  });

  it("lays each window out on two threads: the commit alone, then the longer side with its share of the GC", () => {
    // Window 1: the first commit alone (the boot before it is left out); window 2: modules 1,
    // hub 3, GC 2 (a quarter of it the modules'), its commit 2; window 3: modules 4 (the fleet's
    // clock among them), GC 1 (all the modules'), its commit 1.
    const split = splitBySide(
      profile([
        COMMIT,
        MODULE,
        HUB,
        HUB,
        HUB,
        GC,
        GC,
        COMMIT,
        COMMIT,
        MODULE,
        MODULE,
        MODULE,
        FLEET,
        GC,
        COMMIT,
      ]),
      ROOT,
    );
    expect(split.windows).toBe(3);
    // one thread: all busy time; two: per window commit + max(sides)
    expect(split.oneThreadMs).toBe(1 + 1 + 3 + 2 + 2 + 4 + 1 + 1);
    expect(split.twoThreadMs).toBeCloseTo(1 + Math.max(1 + 0.5, 3 + 1.5) + 2 + 5 + 1, 9);
    expect(split.twoThreadOverlappedMs).toBeCloseTo(1 + Math.max(1.5, 4.5 + 2) + Math.max(5, 0 + 1), 9);
  });

  it("counts nothing before the first group commit (the boot)", () => {
    const split = splitBySide(profile([MODULE, HUB, GC, COMMIT]), ROOT);
    expect(split.ms).toEqual({ hub: 0, commit: 1, modules: 0, gc: 0, idle: 0 });
    expect(split.oneThreadMs).toBe(1);
  });
});
