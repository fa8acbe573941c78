import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { startCli, type CliProcess } from "./cliProcess.js";

export { startRoundRobinProxy, type RoundRobinProxy } from "../../tools/roundRobinProxy.js";

/** A loopback port free now (for a process started next to listen on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * `cardsim hub` as a process on `store` (a PostgreSQL URL), HTTP on 127.0.0.1:`port` and, with
 * `tlsPort`, HTTPS; resolves once it answers.
 */
export async function startHubProcess(options: {
  dir: string;
  store: string;
  port: number;
  tlsPort?: number;
  logLevel?: string;
}): Promise<CliProcess> {
  const cli = startCli([
    "hub",
    "--dir",
    options.dir,
    "--store",
    options.store,
    "--listen",
    `127.0.0.1:${options.port}`,
    "--tls-listen",
    options.tlsPort === undefined ? "off" : `127.0.0.1:${options.tlsPort}`,
    "--log-level",
    options.logLevel ?? "warn",
  ]);
  await cli.waitFor(/HTTP API/, 60_000);
  return cli;
}

/**
 * A second hub process's directory made from the first's: the same credentials (the admin's token
 * works on both) and the same TLS authority and certificate (a module trusts both).
 */
export function twinHubDirectory(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  cpSync(join(from, "credentials.json"), join(to, "credentials.json"));
  if (existsSync(join(from, "tls"))) cpSync(join(from, "tls"), join(to, "tls"), { recursive: true });
}

/** A hub directory's credentials.json. */
export function hubCredentials(dir: string): Record<string, string> {
  return JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<string, string>;
}
