import { expect } from "vitest";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { runCli, startCli, type CliProcess } from "./cliProcess.js";

/**
 * `cardsim module --no-flash --tcp 127.0.0.1:0 --control 127.0.0.1:0` with more flags, as a user
 * runs it: a host on its TCP port, and `cardsim world` pointed at its control API.
 */
export interface ControlledModule {
  readonly module: CliProcess;
  /** The control API's HOST:PORT. */
  readonly control: string;
  /** A request over the TCP port, its reply parsed. */
  request(req: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** `cardsim world --control ... <what>`: must succeed quietly; its JSON output parsed. */
  world(...what: string[]): Promise<Record<string, unknown>>;
  /** Closes the host and stops the module, which must exit with status 0. */
  stop(): Promise<void>;
}

export async function startControlledModule(flags: string[]): Promise<ControlledModule> {
  const module = startCli([
    "module",
    "--no-flash",
    "--tcp",
    "127.0.0.1:0",
    "--control",
    "127.0.0.1:0",
    ...flags,
    "--log-level",
    "warn",
  ]);
  const [, tcpHost, tcpPort] = await module.waitFor(/tcp\s+(\S+):(\d+)/);
  const control = (await module.waitFor(/control\s+(\S+:\d+)/))[1]!;
  const host = await HostLineClient.tcp({ host: tcpHost!, port: Number(tcpPort) });
  return {
    module,
    control,
    request: async (req) =>
      JSON.parse((await host.transaction(JSON.stringify(req)))!) as Record<string, unknown>,
    async world(...what) {
      const run = await runCli(["world", "--control", control, ...what]);
      expect(run.stderr, run.stderr).toBe("");
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    },
    async stop() {
      await host.close();
      expect(await module.stop("SIGTERM")).toBe(0);
    },
  };
}
