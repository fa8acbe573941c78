import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { parseDuration } from "../runtime/DischargeCurve.js";
import { fleetDeviceUid, fleetTag, parseShard, type Shard } from "../runtime/fleet/fleetIdentity.js";
import type { Workload } from "../runtime/fleet/workload.js";
import type { FleetHub } from "../runtime/fleet/Fleet.js";
import { CliError } from "./CliError.js";
import { describeSummary, describeTimeline } from "./fleetOutput.js";

interface FleetCommandOptions {
  modules: number;
  duration: number;
  workload: string;
  dir?: string;
  hub?: string;
  hubCa?: string;
  hubToken?: string;
  product?: string;
  speed?: number | "max";
  shard?: Shard;
  workers: number;
  json?: boolean;
  timeline: string[];
}

const positive = (flag: string, what: string) => (text: string) => {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`${flag} takes ${what}, a whole number of at least 1, not "${text}"`);
  return n;
};

function parseFleetDuration(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  if (!(ms > 0)) throw new InvalidArgumentError(`give a time above 0, like 1d or 6h, not "${text}"`);
  return ms;
}

/** `max`, or a multiple of real time: `60x`, `60`, `0.5x`. */
export function parseSpeed(text: string): number | "max" {
  const t = text.trim().toLowerCase();
  if (t === "max") return "max";
  const n = Number(t.replace(/x$/, ""));
  if (t === "" || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`give max or a multiple of real time like 60x, not "${text}"`);
  return n;
}

function parseShardOption(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * A workload's mistake, by name: the workload reader (YAML, Ajv) is loaded when the command runs,
 * not at every start of the command line, and a class loaded there is another copy than one the
 * start path would hold.
 */
function workloadMistake(error: unknown): CliError | undefined {
  const mistake = ["WorkloadError", "HubElsewhereError"];
  return error instanceof Error && mistake.includes(error.name) ? new CliError(error.message) : undefined;
}

/** The workload named: a built-in one, or a YAML or JSON file read and checked (one line per mistake). */
async function readWorkload(spec: string): Promise<{ workload: Workload; dir: string }> {
  const { BUILT_IN_WORKLOADS, parseWorkload } = await import("../runtime/fleet/workload.js");
  const builtIn = BUILT_IN_WORKLOADS[spec];
  if (builtIn) return { workload: builtIn, dir: process.cwd() };
  let text: string;
  try {
    text = await readFile(spec, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `--workload ${spec}: ${code === "ENOENT" ? "no such file" : (code ?? String(error))} (give ${Object.keys(BUILT_IN_WORKLOADS).join(", ")} or a YAML or JSON workload file: docs/fleet.md)`,
    );
  }
  try {
    return { workload: parseWorkload(text, spec), dir: dirname(resolve(spec)) };
  } catch (error) {
    throw workloadMistake(error) ?? error;
  }
}

/** The flags' combinations that cannot work, each said in one line. */
function checkCombination(options: FleetCommandOptions): void {
  if (!options.hub && !options.dir)
    throw new CliError(
      "give --dir DIR (the directory of the fleet's own hub) or --hub URL (a hub elsewhere)",
    );
  if (options.hub && options.speed === "max")
    throw new CliError(
      "--speed max needs the fleet's own hub: with --hub give a multiple of real time, like --speed 60x",
    );
  if (!options.hub && options.workers > 1)
    throw new CliError(
      "--workers needs --hub URL: the fleet's own hub runs all modules on one clock in one thread",
    );
}

/** The fleet's own hub (`--dir`), or the one `--hub` names (its CA and product from the flags or DIR's credentials). */
async function fleetHub(options: FleetCommandOptions): Promise<FleetHub> {
  if (!options.hub) return { dir: options.dir! };
  const { readNamedInputs, readHubCredentials } = await import("../runtime/rigInputs.js");
  const named = {
    hub: {
      url: options.hub,
      ca: options.hubCa,
      product: options.product,
      credentialsDir: options.dir ?? ".",
    },
  };
  const read = await readNamedInputs(named, false).catch((error: Error) => {
    throw new CliError(error.message);
  });
  const hub = read.hub;
  if (!hub || !("url" in hub)) throw new CliError(`--hub ${options.hub}: not a hub URL`);
  const token = options.hubToken ?? (await readHubCredentials(options.dir ?? ".")).token;
  return {
    url: hub.url,
    ...(token ? { token } : {}),
    ...(hub.ca ? { ca: hub.ca } : {}),
    ...(hub.product ? { product: hub.product } : {}),
  };
}

export function registerFleetCommand(program: Command): void {
  program
    .command("fleet")
    .description("run many modules with a workload against one hub, and sum up what they did")
    .requiredOption(
      "--modules <N>",
      "modules in the fleet (all shards together)",
      positive("--modules", "modules"),
    )
    .option(
      "--duration <TIME>",
      "how long the fleet runs on its clock (like 6h, 1d, 30d)",
      parseFleetDuration,
      86_400_000,
    )
    .option(
      "--workload <NAME|FILE>",
      "the built-in sensors, or a YAML or JSON workload file (docs/fleet.md)",
      "sensors",
    )
    .option("--dir <DIR>", "the directory of the fleet's own hub (cardsim hub --dir DIR opens it afterwards)")
    .option("--hub <URL>", "sync with this hub instead (https://HOST:PORT), in real time or at --speed")
    .option("--hub-ca <FILE>", "the hub's CA certificate (default: the one in DIR/credentials.json)")
    .option("--product <UID>", "the ProductUID to sync with (default: DIR/credentials.json's)")
    .option(
      "--hub-token <TOKEN>",
      "the project owner's API token there, for the workload's environment changes and firmware campaign (default: DIR/credentials.json's)",
    )
    .option(
      "--speed <max|Nx>",
      "max (a fake clock, the own hub only; the default there) or a multiple of real time like 60x (the default with --hub: 1x)",
      parseSpeed,
    )
    .option(
      "--shard <i/N>",
      "run part i (from 0) of N of the fleet, with identities no other part uses",
      parseShardOption,
    )
    .option(
      "--workers <N>",
      "worker threads for the modules (with --hub)",
      positive("--workers", "threads"),
      1,
    )
    .option("--json", "print the summary as JSON")
    .option(
      "--timeline <DEVICE>",
      "also print this device's sessions (a DeviceUID or a place in the fleet, from 0; repeatable)",
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .action(runFleetCommand);
}

/** What `cardsim fleet` does once its flags are read. */
async function runFleetCommand(options: FleetCommandOptions): Promise<void> {
  checkCombination(options);
  const { workload, dir } = await readWorkload(options.workload);
  // A place in the fleet names the device there.
  const timelines = options.timeline.map((t) =>
    /^\d+$/.test(t) ? fleetDeviceUid(fleetTag(workload), Number(t)) : t,
  );
  const [{ runFleet }, { fleetProgressBar }] = await Promise.all([
    import("../runtime/fleet/runFleet.js"),
    import("./fleetOutput.js"),
  ]);
  const hub = await fleetHub(options);
  const bar = options.json ? undefined : fleetProgressBar(options.duration);
  const run = await runFleet({
    modules: options.modules,
    workload,
    workloadDir: dir,
    hub,
    durationMs: options.duration,
    workers: options.workers,
    timelines,
    ...(options.speed !== undefined ? { speed: options.speed } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    ...(bar ? { onProgress: bar.update } : {}),
  })
    .catch((error: unknown) => {
      throw workloadMistake(error) ?? error;
    })
    .finally(() => bar?.stop());
  if (options.json) {
    const timelines = options.timeline.length > 0 ? { timelines: run.timelines } : {};
    process.stdout.write(`${JSON.stringify({ ...run.summary, ...timelines }, null, 2)}\n`);
    return;
  }
  const where = options.hub ? `the hub at ${options.hub}` : `its own hub in ${options.dir}`;
  process.stdout.write(describeSummary(run.summary, workload.name ?? options.workload, where));
  for (const device of timelines) process.stdout.write(describeTimeline(device, run.timelines));
  if (!options.hub) process.stdout.write(`see the results: cardsim hub --dir ${options.dir}\n`);
}
