// Start-up time of the cardsim command, both ways a user has it:
// - the installed package: the packed package (npm pack, its `prepare` builds dist/) installed
//   into an empty project, run as node_modules/.bin/cardsim (and once through npx, whose own start
//   is npm's);
// - a clone: this repository, built as `npm ci` builds it (its `prepare`: tools/build.js, kept
//   when already fresh), run as `node bin/cardsim.js`, which checks the build's stamp at every
//   start; and through tsx (CARDSIM_DIST=0), what a clone runs while its build is stale.
// `cardsim --help`, `--version` and `req` against a running module, each started afresh many
// times, against the ceiling of the same run: `node -e 0`, the least any Node command costs. The
// load average is printed with the figures: they mean something only on an idle machine.
// Target: --help, --version and req start in under 150 ms (median) both ways, idle.
// Run: npx tsx bench/startup.ts [--runs N]
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { installIntoEmptyProject, packRepository, REPO } from "../tools/packedPackage.js";
import { fmt, percentile, printTable } from "./stats.js";

const arg = process.argv.indexOf("--runs");
const RUNS = arg > 0 ? Number(process.argv[arg + 1]) : 20;
const TARGET_MS = 150;

/**
 * CPU milliseconds (user + system) of every child this process has waited for so far (Linux:
 * cutime and cstime of /proc/self/stat, in ticks of 10 ms), or NaN elsewhere. Far less sensitive
 * to other work on the machine than wall-clock time: each run's figure is the mean over its runs.
 */
function childCpuMs(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return NaN;
  }
}

/** Wall-clock milliseconds of `command args` from spawn to exit, `runs` times (after one warm-up). */
function time(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, runs = RUNS) {
  const samples = new Float64Array(runs);
  let cpu0 = 0;
  for (let i = -1; i < runs; i++) {
    if (i === 0) cpu0 = childCpuMs();
    const t0 = performance.now();
    const run = spawnSync(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const ms = performance.now() - t0;
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${String(run.stderr)}`);
    if (i >= 0) samples[i] = ms;
  }
  return { samples: samples.sort(), cpuMs: (childCpuMs() - cpu0) / runs };
}

/** Starts `cardsim module` and resolves with its TCP address and a way to stop it. */
function startModule(command: string, cwd: string) {
  const child = spawn(command, ["module", "--tcp", "127.0.0.1:0", "--no-flash", "--log-level", "warn"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise<{ address: string; stop: () => Promise<void> }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /tcp\s+(\S+:\d+)/.exec(out);
      if (m)
        resolve({
          address: m[1]!,
          stop: () => new Promise((done) => (child.once("exit", () => done()), child.kill("SIGTERM"))),
        });
    });
    child.once("exit", (code) => reject(new Error(`cardsim module exited (${code}): ${out}`)));
  });
}

/** Milliseconds of one check of a clone's build stamp (tools/buildStamp.cjs), median of 200, in process. */
function stampCheckMs(): number {
  const script = `import { buildIsFresh } from "./tools/buildStamp.cjs";
    const xs = []; for (let i = 0; i < 201; i++) { const t = performance.now(); buildIsFresh(".", "dist"); xs.push(performance.now() - t); }
    xs.shift(); xs.sort((a, b) => a - b); console.log(xs[100]);`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO,
    encoding: "utf8",
  });
  return Number(run.stdout.trim());
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
const loadBefore = load();
const packed = await packRepository();
const project = await installIntoEmptyProject(packed.tarball, packed.dir);
const installed = join(project, "node_modules/.bin/cardsim");
// The clone's build, as `npm ci` makes it (kept when already fresh).
const build = spawnSync(process.execPath, [join(REPO, "tools/build.js")], { cwd: REPO, encoding: "utf8" });
if (build.status !== 0) throw new Error(`the build failed: ${build.stderr}`);
const clone = [join(REPO, "bin/cardsim.js")];
const req = (address: string) => ["req", "--tcp", address, '{"req":"card.version"}'];

const rows: Record<string, string | number>[] = [];
const baseline = time(process.execPath, ["-e", "0"], project);
const floor = percentile(baseline.samples, 50);
const targets: number[] = [];
const row = (what: string, { samples, cpuMs }: ReturnType<typeof time>, target?: number) => {
  const p50 = percentile(samples, 50);
  rows.push({
    command: what,
    "p50 ms": fmt(p50, 1),
    "p90 ms": fmt(percentile(samples, 90), 1),
    "× node -e 0": fmt(p50 / floor, 2),
    "cpu ms (mean)": fmt(cpuMs, 1),
    target: target ? `< ${target} ms` : "",
  });
  if (target) targets.push(p50 - target);
};
row("node -e 0 (ceiling)", baseline);

const module = await startModule(installed, project);
row("cardsim --help (installed package)", time(installed, ["--help"], project), TARGET_MS);
row("cardsim --version (installed package)", time(installed, ["--version"], project), TARGET_MS);
row("cardsim req (installed package)", time(installed, req(module.address), project), TARGET_MS);
row(
  "npx cardsim --version (installed package, npm's start included)",
  time("npx", ["cardsim", "--version"], project, {}, 5),
);
row("cardsim --help (clone, built)", time(process.execPath, [...clone, "--help"], REPO), TARGET_MS);
row("cardsim --version (clone, built)", time(process.execPath, [...clone, "--version"], REPO), TARGET_MS);
row(
  "cardsim req (clone, built)",
  time(process.execPath, [...clone, ...req(module.address)], REPO),
  TARGET_MS,
);
// What a clone runs while its build is stale: the sources through tsx (fewer runs: slow).
row(
  "cardsim --version (clone, stale build: tsx)",
  time(process.execPath, [...clone, "--version"], REPO, { CARDSIM_DIST: "0" }, 5),
);
await module.stop();

printTable(`cardsim start-up, ${RUNS} runs each (wall clock, spawn to exit)`, rows);
console.log(`the clone's build-stamp check: ${stampCheckMs().toFixed(2)} ms a start (median, in process)`);
console.log(`load average before: ${loadBefore}; after: ${load()}`);
await rm(packed.dir, { recursive: true, force: true });
const missed = targets.some((over) => over >= 0);
console.log(
  missed ? `missed: a command took ${TARGET_MS} ms or more` : `every target command under ${TARGET_MS} ms`,
);
process.exitCode = missed ? 1 : 0;
