// Start-up time of the cardsim command as a user has it: the packed package (npm pack, its
// prepack builds dist/) installed into an empty project, then `cardsim --help` and `cardsim req`
// against a running module, each started afresh many times, against the ceiling of the same run:
// `node -e 0`, the least any Node command costs. Also the same commands in this clone through
// tsx (TypeScript compiled at every start), the way the command ran before it had a build.
// Target: --help and req start in under 300 ms (median).
// Run: npx tsx bench/startup.ts [--runs N]
import { spawn, spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { installIntoEmptyProject, packRepository, REPO } from "../tools/packedPackage.js";
import { fmt, percentile, printTable } from "./stats.js";

const arg = process.argv.indexOf("--runs");
const RUNS = arg > 0 ? Number(process.argv[arg + 1]) : 20;
const TARGET_MS = 300;

/** Wall-clock milliseconds of `command args` from spawn to exit, `RUNS` times (after one warm-up). */
function time(command: string, args: string[], cwd: string): Float64Array {
  const samples = new Float64Array(RUNS);
  for (let i = -1; i < RUNS; i++) {
    const t0 = performance.now();
    const run = spawnSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const ms = performance.now() - t0;
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${String(run.stderr)}`);
    if (i >= 0) samples[i] = ms;
  }
  return samples.sort();
}

/** Starts `cardsim module` and resolves with its TCP address and a way to stop it. */
function startModule(command: string, args: string[], cwd: string) {
  const child = spawn(
    command,
    [...args, "module", "--tcp", "127.0.0.1:0", "--no-flash", "--log-level", "warn"],
    {
      cwd,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
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

const packed = await packRepository();
const project = await installIntoEmptyProject(packed.tarball, packed.dir);
const installed = join(project, "node_modules/.bin/cardsim");
const clone = [join(REPO, "bin/cardsim.js")];
const req = (address: string) => ["req", "--tcp", address, '{"req":"card.version"}'];

const rows: Record<string, string | number>[] = [];
const baseline = time(process.execPath, ["-e", "0"], project);
const floor = percentile(baseline, 50);
const row = (what: string, samples: Float64Array, target?: number) => {
  const p50 = percentile(samples, 50);
  rows.push({
    command: what,
    "p50 ms": fmt(p50, 1),
    "p90 ms": fmt(percentile(samples, 90), 1),
    "× node -e 0": fmt(p50 / floor, 2),
    target: target ? `< ${target} ms` : "",
  });
  return p50;
};
row("node -e 0 (ceiling)", baseline);

const moduleFromPackage = await startModule(installed, [], project);
const help = row("cardsim --help (installed package)", time(installed, ["--help"], project), TARGET_MS);
const request = row(
  "cardsim req (installed package)",
  time(installed, req(moduleFromPackage.address), project),
  TARGET_MS,
);
row("cardsim boards (installed package)", time(installed, ["boards"], project));
await moduleFromPackage.stop();

// The clone through tsx, for comparison (fewer runs: a second or so each).
const tsxHelp = time(process.execPath, [...clone, "--help"], REPO);
row("cardsim --help (clone, tsx)", tsxHelp);

printTable(`cardsim start-up, ${RUNS} runs each (wall clock, spawn to exit)`, rows);
await rm(packed.dir, { recursive: true, force: true });
const missed = [help, request].some((ms) => ms >= TARGET_MS);
console.log(missed ? `missed: a command took ${TARGET_MS} ms or more` : `both under ${TARGET_MS} ms`);
process.exitCode = missed ? 1 : 0;
