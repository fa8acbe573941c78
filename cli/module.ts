import type { Command } from "commander";
import { Module } from "../firmware/Module.js";
import { SimError } from "../firmware/SimError.js";
import type { Variant } from "../firmware/Variant.js";
import { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import { PtyBridge } from "../hil/links/PtyBridge.js";
import { SerialDeviceServer } from "../hil/links/SerialDeviceServer.js";
import { SimUart } from "../hil/links/SimUart.js";
import { DEFAULT_RX_CAPACITY, type SimUartReceiverOptions } from "../hil/links/SimUartReceiver.js";
import { pinoModuleLog } from "../hil/PinoModuleLog.js";
import { SystemClock } from "../hil/SystemClock.js";
import { addFlashOptions, flashDirectory, openModuleStore, type FlashOptions } from "./flash.js";
import { createLogger, parseHostPort, parseInteger, parseVariant, randomFor } from "./options.js";
import { onShutdown } from "./shutdown.js";

export interface ModuleCommandOptions extends FlashOptions {
  dir: string;
  tcp?: { host: string; port: number };
  pty?: string;
  serial?: string;
  rxBuffer?: number;
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
  readonly serial?: SerialDeviceServer;
  close(): Promise<void>;
}

export async function startModule(options: ModuleCommandOptions): Promise<RunningModule> {
  const logger = createLogger(options.logLevel, "module");
  const clock = new SystemClock();
  const module = await Module.boot({
    clock,
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
  // Serial devices and ptys get the module's finite receive buffer, as a real module's pins do;
  // the TCP port stays a plain line protocol for tools.
  const rx: SimUartReceiverOptions | false =
    options.rxBuffer === 0 ? false : { capacity: options.rxBuffer ?? DEFAULT_RX_CAPACITY };
  const closers: (() => Promise<void>)[] = [() => module.close()];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const tcpAddress = options.tcp ?? parseHostPort(DEFAULT_MODULE_TCP);
    const tcp = await ModuleLinkServer.listen(module, tcpAddress.host, tcpAddress.port);
    closers.push(() => tcp.close());
    let pty: PtyBridge | undefined;
    if (options.pty) {
      const uartPort = await ModuleLinkServer.listen(module, "127.0.0.1", 0, (handler, link) =>
        SimUart.attach(handler, link, { clock, rx, name: "pty" }),
      );
      closers.push(() => uartPort.close());
      pty = await PtyBridge.open(options.pty, uartPort.address);
      const bridge = pty;
      closers.push(() => bridge.close());
    }
    let serial: SerialDeviceServer | undefined;
    if (options.serial) {
      serial = await SerialDeviceServer.start(module, options.serial, {
        clock,
        rx,
        onStatus: ({ open, error }) =>
          open
            ? logger.info({ device: options.serial }, "serial device open")
            : logger.warn({ device: options.serial, error }, "serial device gone; reopening when it is back"),
      });
      const device = serial;
      closers.push(() => device.close());
    }
    return { module, tcp, pty, serial, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

export function describeModule(running: RunningModule): string {
  const { module, tcp, pty, flash } = running;
  const lines = [
    `module ${module.deviceUid} (${module.variant.name}, ${module.variant.sku})`,
    `  tcp  ${tcp.address.host}:${tcp.address.port}`,
  ];
  if (pty) lines.push(`  pty  ${pty.path}`);
  if (running.serial) lines.push(`  serial  ${running.serial.path} @${running.serial.baudRate}`);
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
      "--serial <DEV[@BAUD]>",
      "serve a serial device: a Pi UART (/dev/ttyAMA0), the USB gadget port (/dev/ttyGS0), a USB adapter; baud defaults to 9600",
    )
    .option(
      "--rx-buffer <BYTES>",
      `the module's serial receive buffer on --serial and --pty (default ${DEFAULT_RX_CAPACITY}; 0: unlimited)`,
      parseInteger,
    )
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
