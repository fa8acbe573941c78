/**
 * What a second thread could save a fleet run (docs/fleet.md, "Both cores?"): a CPU profile of
 * the run's thread split by side (the hub's code, or the modules' and the fleet's) and cut at the
 * hub's group commits, each window's work then laid out as if the hub ran in a thread of its own.
 */

/** The parts of a V8 CPU profile (`Profiler.stop`, `--cpu-prof`) read here. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  /** Microseconds before each sample (the first from the profile's start). */
  readonly timeDeltas: readonly number[];
}

/** Where a sample's time went: `commit` is the hub's group commit (SqliteConnection.commitGroup). */
export type Side = "hub" | "commit" | "modules" | "gc" | "idle";

export interface SideSplit {
  /** Commit windows seen (runs of samples in a group commit). */
  readonly windows: number;
  /** Milliseconds by side between the first and the last group commit (boot and drain left out). */
  readonly ms: Readonly<Record<Side, number>>;
  /** The busy time of that span on one thread (idle left out). */
  readonly oneThreadMs: number;
  /**
   * The same work on two threads, window by window: the commit alone (the replies wait for it),
   * then the longer of the modules' work and the hub's (each with its share of the GC).
   */
  readonly twoThreadMs: number;
  /** As `twoThreadMs`, with the commit overlapping the modules' work too (replies sent before it). */
  readonly twoThreadOverlappedMs: number;
}

/**
 * Splits `profile` by side: a sample is the hub's when the innermost frame of the repository's
 * `hub/` or `firmware/` (found from the leaf up) is the hub's; everything else the run's thread
 * does (the modules, the fleet's clock and driver, Node) stays on the modules' side. `root` is the
 * repository's URL (`file:///.../`), as the profile's frames name their scripts.
 */
export function splitBySide(profile: CpuProfile, root: string): SideSplit {
  const classify = classifier(profile, root);
  const ms = { hub: 0, commit: 0, modules: 0, gc: 0, idle: 0 };
  let window = { hub: 0, modules: 0, gc: 0, commit: 0 };
  const windows: (typeof window)[] = [];
  let inCommit = false;
  let started = false;
  let pending = { hub: 0, commit: 0, modules: 0, gc: 0, idle: 0 };
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample stands for the time since the one before.
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const side = classify(profile.samples[i]!);
    if (side === "commit") {
      started = true;
      inCommit = true;
      for (const key of Object.keys(pending) as Side[]) ms[key] += pending[key];
      pending = { hub: 0, commit: 0, modules: 0, gc: 0, idle: 0 };
      ms.commit += dt;
      window.commit += dt;
      continue;
    }
    if (!started) continue;
    if (inCommit) {
      windows.push(window);
      window = { hub: 0, modules: 0, gc: 0, commit: 0 };
      inCommit = false;
    }
    // Counted once a later commit shows the span goes on (what follows the last is the drain).
    pending[side] += dt;
    if (side !== "idle") window[side] += dt;
  }
  if (inCommit) windows.push(window);
  let oneThreadMs = 0;
  let twoThreadMs = 0;
  let twoThreadOverlappedMs = 0;
  for (const w of windows) {
    const work = w.hub + w.modules;
    const gcModules = work > 0 ? (w.gc * w.modules) / work : w.gc / 2;
    const modules = w.modules + gcModules;
    const hub = w.hub + (w.gc - gcModules);
    oneThreadMs += modules + hub + w.commit;
    twoThreadMs += w.commit + Math.max(modules, hub);
    twoThreadOverlappedMs += Math.max(modules, hub + w.commit);
  }
  return { windows: windows.length, ms, oneThreadMs, twoThreadMs, twoThreadOverlappedMs };
}

/** Each profile node's side, worked out once per node from its stack. */
function classifier(profile: CpuProfile, root: string): (id: number) => Side {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const hub = `${root}hub/`;
  const firmware = `${root}firmware/`;
  const sides = new Map<number, Side>();
  return (id) => {
    let side = sides.get(id);
    if (side) return side;
    let inner: Side | undefined;
    let commit = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      if (functionName === "commitGroup" && url.startsWith(hub)) commit = true;
      if (inner) continue;
      if (functionName === "(garbage collector)") inner = "gc";
      else if (functionName === "(idle)") inner = "idle";
      else if (url.startsWith(hub)) inner = "hub";
      else if (url.startsWith(firmware)) inner = "modules";
    }
    side = commit ? "commit" : (inner ?? "modules");
    sides.set(id, side);
    return side;
  };
}
