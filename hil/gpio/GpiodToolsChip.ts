import { execFile, spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import type { GpioBias, GpioChip, GpioDrive, GpioInput, GpioOutput } from "./GpioChip.js";

const run = promisify(execFile);

export interface GpiodToolsOptions {
  /** Chip (`gpiochip0`); when absent, lines are given by name (`GPIO17`) and resolved. */
  readonly chip?: string;
  /** Folder holding gpioset, gpioget, gpiomon, gpiofind (default: found on PATH). */
  readonly toolsDir?: string;
  /** libgpiod tools major version; detected from `gpioset --version` when absent. */
  readonly version?: 1 | 2;
}

/**
 * The Linux GPIO character device through Debian's gpiod tools (libgpiod v1 on Debian 12 /
 * Raspberry Pi OS bookworm, v2 on Debian 13), so the simulator needs no native addon. An output
 * is held by one `gpioset` process per level (each write replaces it); an input is a `gpiomon`
 * process whose event lines give the edges. Needs read/write access to /dev/gpiochip* (group
 * `gpio` on Raspberry Pi OS).
 */
export class GpiodToolsChip implements GpioChip {
  readonly #options: GpiodToolsOptions;
  #version: Promise<1 | 2> | undefined;
  readonly #claimed = new Set<{ release(): Promise<void> }>();

  constructor(options: GpiodToolsOptions = {}) {
    this.#options = options;
  }

  #tool(name: string): string {
    return this.#options.toolsDir ? join(this.#options.toolsDir, name) : name;
  }

  /** The tools' major version. */
  version(): Promise<1 | 2> {
    if (this.#options.version) return Promise.resolve(this.#options.version);
    return (this.#version ??= run(this.#tool("gpioset"), ["--version"]).then(
      ({ stdout }) => {
        const match = /v(\d+)\./.exec(stdout);
        if (!match) throw new Error(`cannot tell the gpiod tools version from: ${stdout.trim()}`);
        return Number(match[1]) >= 2 ? 2 : 1;
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT" && error.code !== "EACCES") throw error;
        const where = this.#options.toolsDir ? `in ${this.#options.toolsDir}` : "on PATH";
        throw new Error(
          `the gpiod tools are missing (no gpioset ${where}): install them (sudo apt-get install gpiod) or give their folder with --gpiod-tools DIR`,
        );
      },
    ));
  }

  /** Chip and line arguments for a tool: v1 needs a chip and an offset, v2 takes names. */
  async #where(line: string | number): Promise<{ chip?: string; line: string }> {
    const version = await this.version();
    if (this.#options.chip) return { chip: this.#options.chip, line: String(line) };
    if (version === 2 || typeof line === "number") {
      if (typeof line === "number") throw new Error(`GPIO line ${line} given by offset needs a chip`);
      return { line };
    }
    const { stdout } = await run(this.#tool("gpiofind"), [line]);
    const [chip, offset] = stdout.trim().split(/\s+/);
    if (!chip || offset === undefined) throw new Error(`gpiofind found no line named ${line}`);
    return { chip, line: offset };
  }

  async output(
    line: string | number,
    options: { initial?: boolean; consumer?: string; drive?: GpioDrive } = {},
  ): Promise<GpioOutput> {
    const version = await this.version();
    const where = await this.#where(line);
    const consumer = options.consumer ?? "cardsim";
    // Both tool versions take --drive (libgpiod 1.5 and later).
    const drive = options.drive === "open-drain" ? ["--drive=open-drain"] : [];
    const args = (high: boolean) => {
      const value = `${where.line}=${high ? 1 : 0}`;
      if (version === 1) return ["--mode=signal", ...drive, where.chip!, value];
      return [...(where.chip ? ["-c", where.chip] : []), ...drive, "-C", consumer, value];
    };
    let level = options.initial ?? false;
    let holder: ChildProcess | undefined;
    let chain: Promise<void> = Promise.resolve();
    const hold = async (high: boolean) => {
      await stop(holder);
      holder = spawn(this.#tool("gpioset"), args(high), { stdio: ["ignore", "ignore", "pipe"] });
      await started(holder, "gpioset");
    };
    chain = hold(level);
    await chain;
    const output: GpioOutput = {
      line,
      get level() {
        return level;
      },
      write(high: boolean) {
        if (high === level) return;
        level = high;
        chain = chain.then(() => hold(high));
      },
      settled: () => chain,
      release: async () => {
        await chain.catch(() => undefined);
        await stop(holder);
        holder = undefined;
        this.#claimed.delete(output);
      },
    };
    this.#claimed.add(output);
    return output;
  }

  async input(
    line: string | number,
    options: { bias?: GpioBias; consumer?: string } = {},
  ): Promise<GpioInput> {
    const version = await this.version();
    const where = await this.#where(line);
    const bias = options.bias && options.bias !== "as-is" ? ["-B", options.bias] : [];
    const chipArgs = version === 1 ? [where.chip!] : where.chip ? ["-c", where.chip] : [];
    const get = await run(this.#tool("gpioget"), [
      ...(version === 2 ? ["--numeric"] : []),
      ...bias,
      ...chipArgs,
      where.line,
    ]);
    let level = get.stdout.trim().endsWith("1");
    const monitor = spawn(this.#tool("gpiomon"), ["--format=%e", ...bias, ...chipArgs, where.line], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    await started(monitor, "gpiomon");
    const listeners: ((high: boolean) => void)[] = [];
    // %e: 1 = rising edge; 0 (v1) or 2 (v2) = falling edge.
    createInterface({ input: monitor.stdout! }).on("line", (text) => {
      const high = text.trim() === "1";
      if (high === level) return;
      level = high;
      for (const l of listeners) l(high);
    });
    const input: GpioInput = {
      line,
      get level() {
        return level;
      },
      onChange: (listener) => void listeners.push(listener),
      release: async () => {
        await stop(monitor);
        this.#claimed.delete(input);
      },
    };
    this.#claimed.add(input);
    return input;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#claimed].map((c) => c.release()));
  }
}

/** Resolves once the process runs; rejects with its complaint when it exits at once. */
function started(child: ChildProcess, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const onExit = (code: number | null) =>
      reject(new Error(`${name} exited (${code}) ${stderr.trim() || "without a message"}`));
    child.once("error", (error) =>
      reject(new Error(`${name}: ${error.message}: install the gpiod tools (sudo apt-get install gpiod)`)),
    );
    child.once("exit", onExit);
    child.once("spawn", () => {
      // A tool that refuses the line (busy, no permission) exits within a few milliseconds.
      setTimeout(() => {
        child.off("exit", onExit);
        if (child.exitCode === null) resolve();
        else onExit(child.exitCode);
      }, 30);
    });
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
