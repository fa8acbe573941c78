import type { Command } from "commander";
import { Module } from "../firmware/Module.js";
import { SimError } from "../firmware/SimError.js";
import type { Variant } from "../firmware/Variant.js";
import { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import { PtyBridge } from "../hil/links/PtyBridge.js";
import { pinoModuleLog } from "../hil/PinoModuleLog.js";
import { SystemClock } from "../hil/SystemClock.js";
import { addFlashOptions, flashDirectory, openModuleStore, type FlashOptions } from "./flash.js";
import { createLogger, parseHostPort, parseInteger, parseVariant, randomFor } from "./options.js";
import { onShutdown } from "./shutdown.js";

export interface ModuleCommandOptions extends FlashOptions {
  dir: string;
  tcp?: { host: string; port: number };
  pty?: string;
  sku: Variant;
  seed?: string;
  timeKnown?: boolean;
  maxRequest?: number;
  strict?: boolean;
  trace?: boolean;
  logLevel: string;
}

export const DEFAULT_MODULE_TCP = "127.0.0.1:9600";

/** A running module and the links it serves; `up` reuses it. */
export interface RunningModule {
  readonly module: Module;
  readonly tcp: ModuleLinkServer;
  readonly pty?: PtyBridge;
  /** The flash directory, undefined when the module runs on memory only (`--no-flash`). */
  readonly flash?: string;
  close(): Promise<void>;
}

export async function startModule(options: ModuleCommandOptions): Promise<RunningModule> {
  const logger = createLogger(options.logLevel, "module");
  const store = await openModuleStore(options);
  const module = await Module.boot({
    clock: new SystemClock(),
    random: randomFor(options.seed),
    store,
    variant: options.sku,
    log: pinoModuleLog(logger),
    timeKnown: options.timeKnown,
    maxRequestBytes: options.maxRequest,
    strictArgs: options.strict,
    trace: options.trace,
  }).catch(async (error: unknown) => {
    await store.close().catch(() => undefined);
    throw error;
  });
  const tcpAddress = options.tcp ?? parseHostPort(DEFAULT_MODULE_TCP);
  const tcp = await ModuleLinkServer.listen(module, tcpAddress.host, tcpAddress.port).catch(
    async (error: unknown) => {
      await module.close(); // lets go of the flash (and its lock)
      throw error;
    },
  );
  let pty: PtyBridge | undefined;
  try {
    if (options.pty) pty = await PtyBridge.open(options.pty, { host: "127.0.0.1", port: tcp.address.port });
  } catch (error) {
    await tcp.close();
    await module.close();
    throw error;
  }
  return {
    module,
    tcp,
    pty,
    flash: flashDirectory(options),
    async close() {
      await pty?.close();
      await tcp.close();
      await module.close();
    },
  };
}

export function describeModule(running: RunningModule): string {
  const { module, tcp, pty, flash } = running;
  const lines = [
    `module ${module.deviceUid} (${module.variant.name}, ${module.variant.sku})`,
    `  tcp  ${tcp.address.host}:${tcp.address.port}`,
  ];
  if (pty) lines.push(`  pty  ${pty.path}`);
  lines.push(`  flash ${flash ?? "(memory only)"}`);
  return lines.join("\n");
}

export function addModuleOptions(command: Command): Command {
  return addFlashOptions(command.option("--dir <D>", "state directory", "./.cardsim"))
    .option(
      "--tcp <HOST:PORT>",
      `serve the serial line protocol on TCP (default ${DEFAULT_MODULE_TCP})`,
      parseHostPort,
    )
    .option("--pty <PATH>", "create a virtual serial device at PATH (needs socat)")
    .option(
      "--sku <SKU>",
      "hardware variant: cell, cell-wifi, wifi, lora, ntn, or a SKU",
      parseVariant,
      parseVariant("cell"),
    )
    .option("--seed <SEED>", "seed the module's randomness (repeatable identity and IDs)")
    .option("--time-known", "start with the time set, as if the module had synced once")
    .option("--max-request <BYTES>", "longest request line accepted", parseInteger)
    .option("--strict", "answer unrecognized request arguments with an error instead of ignoring them")
    .option("--trace", "log every request and reply")
    .option("--log-level <LEVEL>", "trace, debug, info, warn, error", "info");
}

export function registerModuleCommand(program: Command): void {
  addModuleOptions(
    program.command("module").description("run one simulated module and serve its host interface"),
  ).action(async (options: ModuleCommandOptions) => {
    let running: RunningModule;
    try {
      running = await startModule(options);
    } catch (error) {
      // Flash errors (in use, unreadable, newer format) are for the user, not a stack trace.
      if (!(error instanceof SimError)) throw error;
      process.stderr.write(`cardsim module: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    // Ready to stop cleanly before telling anyone it is ready.
    onShutdown(() => running.close());
    process.stdout.write(describeModule(running) + "\n");
  });
}
