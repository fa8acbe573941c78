import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CARDSIM_BIN = fileURLToPath(new URL("../../bin/cardsim.js", import.meta.url));

export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (waits for it to be printed). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The same on stderr (where logs and a command's notices go). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /**
   * Resolves once stderr (the logs) holds `count` lines matching `pattern`, for what the process
   * logs each time it happens (`"msg":"sync session ended"`).
   */
  waitForLogs(pattern: RegExp, count: number, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and waits for the process to exit; resolves with its exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/** Starts `cardsim <args>` as a child process (the real command line, as a user runs it). */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): CliProcess {
  const child = spawn(process.execPath, [CARDSIM_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => {
      resolve(code ?? signal);
      for (const l of listeners) l();
    }),
  );
  /** Resolves with what `find` finds in the output, looking again at each chunk printed. */
  const waitOn = <T>(find: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          cleanup();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          reject(
            new Error(
              `cardsim exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${out}\n${err}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`cardsim did not get to ${what} within ${timeoutMs} ms:\n${out}\n${err}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern, timeoutMs = 20_000) =>
      waitOn(() => pattern.exec(out) ?? undefined, `printing ${pattern}`, timeoutMs),
    waitForStderr: (pattern, timeoutMs = 20_000) =>
      waitOn(() => pattern.exec(err) ?? undefined, `printing ${pattern} on stderr`, timeoutMs),
    waitForLogs: async (pattern, count, timeoutMs = 20_000) => {
      const lines = () => err.split("\n").filter((line) => pattern.test(line)).length;
      await waitOn(
        () => (lines() >= count ? true : undefined),
        `logging ${pattern} ${count} times`,
        timeoutMs,
      );
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs `cardsim <args>` to completion. */
export function runCli(
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CARDSIM_BIN, ...args], {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cardsim ${args.join(" ")} did not finish:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A caller of the project API of a hub process, from its `credentials.json` (read when called:
 * the hub writes it at start): `path` under `/v1/projects/{project}`, as the admin's token.
 */
export function projectApi(credentials: () => Record<string, string>) {
  return async (
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    const c = credentials();
    const response = await fetch(`${c["hub_url"]}/v1/projects/${c["project_uid"]}${path}`, {
      method: init.method ?? "GET",
      headers: {
        authorization: `Bearer ${c["token"]}`,
        ...(init.body ? { "content-type": "application/json" } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
}

/** The line a module process logs as each sync session ends (JSON logs at `--log-level info`). */
export const SESSION_LOGGED = /"msg":"sync session (ended|failed)"/;

/**
 * Asks a module process for a sync (`hub.sync` through `request`, over whichever link the test
 * holds) and resolves with its `hub.sync.status` once the module has logged that the session
 * ended. The sessions before it must have been logged already (wait for them first).
 */
export async function syncAndWait(
  cli: CliProcess,
  request: (req: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const before = cli
    .stderr()
    .split("\n")
    .filter((line) => SESSION_LOGGED.test(line)).length;
  await request({ req: "hub.sync" });
  await cli.waitForLogs(SESSION_LOGGED, before + 1);
  return request({ req: "hub.sync.status" });
}
