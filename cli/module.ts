import { InvalidArgumentError, type Command } from "commander";
import type { BoardRig } from "../boards/buildBoard.js";
import type { Clock } from "../core/Clock.js";
import type { Module } from "../firmware/Module.js";
import type { Variant } from "../firmware/Variant.js";
import type { I2cTargetBackend } from "../hil/i2c/I2cTargetBackend.js";
import type { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import type { PtyBridge } from "../hil/links/PtyBridge.js";
import type { SerialDeviceServer } from "../hil/links/SerialDeviceServer.js";
import { DEFAULT_RX_CAPACITY } from "../hil/links/SimUartReceiver.js";
import type { ModuleRig, ModuleRigOptions, RigPartError } from "../runtime/assembleModule.js";
import type { RigNamedInputs } from "../runtime/rigInputs.js";
import type { SimulatedModule } from "../runtime/SimulatedModule.js";
import type { WorldControlServer } from "../runtime/WorldControlServer.js";
import { decodeBase64 } from "../core/base64.js";
import { publicKeyToPem } from "../core/Crypto.js";
import { CliError, listenFailure } from "./CliError.js";
import { addFlashOptions, flashDirectory, type FlashOptions } from "./flash.js";
import { addLogOptions, parseHostPort, parseInteger, parseVariant, type LogOptions } from "./options.js";
import {
  parseFloatOption,
  parseLatency,
  parseLocation,
  parseSignal,
  parseSupply,
  parseVoltage,
  type ModuleInputFlags,
} from "./moduleFlags.js";
import { onShutdown } from "./shutdown.js";
import { SIGNAL_PRESETS, type SignalPreset } from "../firmware/radio/RadioConditions.js";
import type { SupplySource } from "../runtime/supplyChange.js";

// Only what `--help` needs is imported above: the module, its links and the hardware adapters
// are loaded when a command runs (cardsim starts in a few tens of milliseconds).

export interface ModuleCommandOptions extends FlashOptions, LogOptions, ModuleInputFlags {
  tcp?: { host: string; port: number };
  pty?: string;
  serial?: string;
  rxBuffer?: number;
  board?: string;
  i2c?: string;
  gpiodTools?: string;
  sku?: Variant;
  seed?: string;
  timeKnown?: boolean;
  maxRequest?: number;
  strict?: boolean;
  trace?: boolean;
  /** Serve the world control API (`cardsim world`) on `HOST:PORT`. */
  control?: { host: string; port: number };
  /** Radio signal preset (`--signal`) and the latency of each exchange with the hub (`--latency`). */
  signal?: SignalPreset;
  latency?: number;
  /** The supply: source (`--supply`) and volts (`--voltage`); `--discharge` is an input flag. */
  supply?: SupplySource;
  voltage?: number;
  /** The module's clock (not a command-line option: tests run the command's rig on virtual time). */
  clock?: Clock;
}

export const DEFAULT_MODULE_TCP = "127.0.0.1:9600";

/** A running module and the links it serves; `up` reuses it. */
export interface RunningModule {
  readonly module: Module;
  readonly simulated: SimulatedModule;
  /** Where the module syncs: a hub URL, "in process", or undefined without a hub. */
  readonly hub?: string;
  /** The world control API, with `--control`. */
  readonly control?: WorldControlServer;
  /** The TCP line server, when the module serves one (`--tcp`, or no other link given). */
  readonly tcp?: ModuleLinkServer;
  readonly pty?: PtyBridge;
  readonly serial?: SerialDeviceServer;
  /** The board's pins and links, with `--board`. */
  readonly board?: BoardRig;
  /** The backend the module's I2C target is on, when it has one. */
  readonly i2c?: I2cTargetBackend;
  /** The flash directory, undefined when the module runs on memory only (`--no-flash`). */
  readonly flash?: string;
  close(): Promise<void>;
}

/** The module's rig as the command line asks for it; the rig itself is runtime/assembleModule. */
export async function startModule(options: ModuleCommandOptions): Promise<RunningModule> {
  const [{ assembleModule }, { SystemClock }] = await Promise.all([
    import("../runtime/assembleModule.js"),
    import("../runtime/SystemClock.js"),
  ]);
  const wanted = await moduleRigOptions(options);
  const rig = await assembleModule({ ...wanted, clock: options.clock ?? new SystemClock() }).catch(
    (error: unknown) => {
      throw cliFailure(error);
    },
  );
  if (rig.logger) rig.logger.level = options.logLevel;
  const hub = options.linkedHub ? "in process" : options.hub;
  return runningModule(rig, flashDirectory(options), hub);
}

/**
 * The flags as the options of a module's rig (all but its clock). What they name (files, the hub,
 * an I2C backend) the rig reads; its logger logs only warnings until the caller has every link up
 * and sets it back to `--log-level` (`rig.logger`).
 */
export async function moduleRigOptions(
  options: ModuleCommandOptions,
): Promise<Omit<ModuleRigOptions, "clock">> {
  const { boardNamed, boards } = await import("../boards/boards.js");
  if (options.board && !boardNamed(options.board)) {
    throw new InvalidArgumentError(
      `unknown board ${options.board}; one of ${Object.keys(boards).join(", ")} (cardsim boards describes them)`,
    );
  }
  return {
    flash: flashOption(options),
    ...linkOptions(options),
    ...(options.linkedHub ? { hub: options.linkedHub } : {}),
    ...(options.location || options.mojo
      ? {
          world: {
            ...(options.location ? { position: options.location } : {}),
            ...(options.mojo ? { mojo: true } : {}),
          },
        }
      : {}),
    named: namedInputs(options),
    logging: { level: options.logLevel, format: options.logFormat },
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.board ? { board: options.board } : {}),
    ...(options.gpiodTools ? { boardOptions: { gpiodToolsDir: options.gpiodTools } } : {}),
    ...(options.sku ? { variant: options.sku } : {}),
    timeKnown: options.timeKnown,
    maxRequestBytes: options.maxRequest,
    strictArgs: options.strict,
    trace: options.trace,
    syncAtStart: true,
  };
}

/** What the flags name rather than give: the hub's URL, a track, a discharge, an I2C backend. */
function namedInputs(options: ModuleCommandOptions): RigNamedInputs {
  const { hub, hubCa, product, track, trackSpeed, discharge, i2c } = options;
  return {
    ...(hub && !options.linkedHub
      ? { hub: { url: hub, ca: hubCa, product, credentialsDir: options.dir } }
      : {}),
    ...(track ? { track: { path: track, ...(trackSpeed !== undefined ? { speed: trackSpeed } : {}) } } : {}),
    ...(discharge !== undefined ? { discharge } : {}),
    ...(i2c ? { i2c } : {}),
  };
}

/** The flash directory (`--flash`, by default under `--dir`), or memory (`--no-flash`). */
function flashOption(options: ModuleCommandOptions): ModuleRigOptions["flash"] {
  const dir = flashDirectory(options);
  const capacity = options.flashCapacity ? { capacity: options.flashCapacity } : {};
  return dir ? { dir, ...capacity } : { memory: capacity };
}

/** The supply, the radio, and the ports the module serves. */
function linkOptions(options: ModuleCommandOptions): Partial<ModuleRigOptions> {
  return {
    supply: {
      ...(options.supply ? { source: options.supply } : {}),
      ...(options.voltage !== undefined ? { volts: options.voltage } : {}),
    },
    radio: {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.latency !== undefined ? { latencyMs: options.latency } : {}),
    },
    ...(options.control ? { control: options.control } : {}),
    ...(options.tcp ? { tcp: options.tcp } : {}),
    ...(options.pty ? { pty: options.pty } : {}),
    ...(options.serial ? { serial: options.serial } : {}),
    ...(options.rxBuffer !== undefined ? { rxBuffer: options.rxBuffer } : {}),
  };
}

/** The running rig as the command reports it. */
export function runningModule(
  rig: ModuleRig,
  flash: string | undefined,
  hub: string | undefined,
): RunningModule {
  return {
    get module() {
      return rig.simulated.module;
    },
    simulated: rig.simulated,
    ...(hub ? { hub } : {}),
    ...(rig.control ? { control: rig.control } : {}),
    tcp: rig.tcp,
    pty: rig.pty,
    serial: rig.serial,
    board: rig.board,
    i2c: rig.i2c,
    flash,
    close: () => rig.close(),
  };
}

/**
 * A part of the rig that would not start, or a file or value a flag named that is wrong, in the
 * user's words naming the flag.
 */
export function cliFailure(error: unknown): unknown {
  if (error instanceof Error && error.name === "RigInputError") return new CliError(error.message);
  if (!(error instanceof Error) || error.name !== "RigPartError") return error;
  const failed = error as RigPartError;
  if (failed.address) return listenFailure(failed.cause, { flag: `--${failed.part}`, ...failed.address });
  return new CliError(failed.message);
}

/**
 * The module's public key in PEM (what a hub in pinned mode must be told,
 * `PUT /v1/projects/{projectUID}/devices/{deviceUID}/public-key`), or undefined while it has none.
 */
export function modulePublicKeyPem(module: Module): string | undefined {
  const key = module.identity().key;
  const bytes = key && decodeBase64(key.public);
  return bytes ? publicKeyToPem(bytes) : undefined;
}

/**
 * `cardsim module --print-key`: the module's DeviceUID and public key (PEM), read from its flash
 * (a module that never ran makes its identity now and keeps it there, as at its first boot). Boots
 * the module on its flash without any link, hub or port, and stops it again.
 */
export async function readModuleKey(options: ModuleCommandOptions): Promise<{ device: string; pem: string }> {
  if (flashDirectory(options) === undefined && options.seed === undefined) {
    throw new CliError(
      "--print-key with --no-flash: that key would be gone when the command ends; keep a flash, or give --seed (the same seed makes the same key)",
    );
  }
  const [{ assembleModule }, { SystemClock }] = await Promise.all([
    import("../runtime/assembleModule.js"),
    import("../runtime/SystemClock.js"),
  ]);
  const rig = await assembleModule({
    clock: new SystemClock(),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    flash: flashOption(options),
    ...(options.sku ? { variant: options.sku } : {}),
  });
  const simulated = rig.simulated;
  try {
    const pem = modulePublicKeyPem(simulated.module);
    if (!pem) throw new CliError("the module has no key pair: its flash has no room for one");
    return { device: simulated.module.deviceUid, pem };
  } finally {
    await rig.close();
  }
}

export function describeModule(running: RunningModule): string {
  const { module, tcp, pty, flash } = running;
  const lines = [`module ${module.deviceUid} (${module.variant.name}, ${module.variant.sku})`];
  const pem = modulePublicKeyPem(module);
  if (pem) {
    // The PEM's one line of base64 is the key; --print-key prints the whole PEM to pin it.
    const base64 = pem
      .split("\n")
      .filter((l) => l && !l.startsWith("-----"))
      .join("");
    lines.push(`  key  ${base64} (Ed25519; cardsim module --print-key prints the PEM to pin)`);
  }
  if (tcp) lines.push(`  tcp  ${tcp.address.host}:${tcp.address.port}`);
  if (pty) lines.push(`  pty  ${pty.path}`);
  lines.push(`  flash ${flash ?? "(memory only)"}`);
  lines.push(`  hub  ${running.hub ?? "none (--hub URL to sync)"}`);
  if (running.control)
    lines.push(
      `  control  ${running.control.address.host}:${running.control.address.port}` +
        `  (module page: http://${running.control.address.host.includes(":") ? `[${running.control.address.host}]` : running.control.address.host}:${running.control.address.port}/)`,
    );
  if (running.serial) lines.push(`  serial  ${running.serial.path} @${running.serial.baudRate}`);
  if (running.i2c) lines.push(`  i2c  ${running.i2c.kind} (${running.i2c.profile.name}) at 0x17`);
  if (running.board) {
    const { board } = running.board;
    lines.push(`  board  ${board.name}: ${board.title}`);
    lines.push(`  attn  ${board.gpio.attn.line} (pin ${board.gpio.attn.pin})`);
    lines.push(
      `  reset  ${board.gpio.hostReset.line} (pin ${board.gpio.hostReset.pin}), to the host's RESET`,
    );
  }
  return lines.join("\n");
}

export function addModuleOptions(command: Command): Command {
  const withOptions = addFlashOptions(command.option("--dir <D>", "state directory", "./.cardsim"))
    .option(
      "--tcp <HOST:PORT>",
      `serve the serial line protocol on TCP (${DEFAULT_MODULE_TCP} when no other link is given)`,
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
    .option("--board <NAME>", "run on a board's pins: pi3, pi4, pi5, zero2w, virtual (see cardsim boards)")
    .option(
      "--i2c <BACKEND>",
      "the I2C target's backend: pigpiod[:HOST[:PORT]] (Pi BSC), rp2040:DEVICE (USB bridge), none; a board has a default",
    )
    .option("--gpiod-tools <DIR>", "folder of gpioset, gpioget and gpiomon when they are not on PATH")
    .option(
      "--sku <SKU>",
      "hardware variant: cell, cell-wifi, wifi, lora, ntn, or a SKU; +xp for extended power, +starnote for a wired satellite module (default: cell)",
      parseVariant,
    )
    .option("--seed <SEED>", "seed the module's randomness (repeatable identity and IDs)")
    .option("--time-known", "start with the time set, as if the module had synced once")
    .option("--max-request <BYTES>", "longest request line accepted", parseInteger)
    .option("--strict", "answer unrecognized request arguments with an error instead of ignoring them")
    .option("--trace", "print every request and reply")
    .option("--location <LAT,LON>", "where the module is (its GPS finds it there)", parseLocation)
    .option("--track <FILE>", "a GPX or NMEA track the module travels along, on its clock")
    .option("--mojo", "a Mojo power monitor on the module's supply (card.power, _log.qo readings)")
    .option("--track-speed <M/S>", "speed along a track whose points have no times", parseFloatOption)
    .option(
      "--control <HOST:PORT>",
      "serve the world control API (cardsim world drives it: place, radio, supply) and the module page there",
      parseHostPort,
    )
    .option("--signal <PRESET>", `radio signal: ${SIGNAL_PRESETS.join(", ")} (default good)`, parseSignal)
    .option("--latency <MS>", "each exchange with the hub takes MS milliseconds", parseLatency)
    .option("--supply <SOURCE>", "power source: usb, battery or line (default battery)", parseSupply)
    .option("--voltage <V>", "supply voltage in volts (default 3.9)", parseVoltage)
    .option(
      "--discharge <FILE|linear:FROM-TO/TIME>",
      "play a battery discharge: a CSV of time,volts (times like 30m, 12h, 2d) or linear:4.2-3.3/30d",
    );
  return addLogOptions(withOptions);
}

/** Where a stopped module's state is, for the line printed at Ctrl-C. */
export function moduleStateLine(running: RunningModule): string {
  return running.flash
    ? `its flash is in ${running.flash}`
    : "it ran on memory only (--no-flash): its state is gone";
}

/** The hub a lone module syncs with (`cardsim up` links its module to its own hub instead). */
function addHubLinkOptions(command: Command): Command {
  return command
    .option("--hub <URL>", "sync with the hub at URL: https://HOST:PORT (plain http:// only on loopback)")
    .option("--hub-ca <FILE>", "the hub's CA certificate (default: the one D/credentials.json names)")
    .option(
      "--product <UID>",
      "the ProductUID to sync with until the host sets one (default: D/credentials.json's)",
    );
}

export function registerModuleCommand(program: Command): void {
  addModuleOptions(
    addHubLinkOptions(
      program.command("module").description("run one simulated module and serve its host interface"),
    ),
  )
    .option(
      "--print-key",
      "print the module's public key (PEM) to pin on a hub, and exit (starts no link; makes the identity of a new flash)",
    )
    .action(async (options: ModuleCommandOptions & { printKey?: boolean }) => {
      if (options.printKey) {
        const { device, pem } = await readModuleKey(options);
        process.stdout.write(pem);
        process.stderr.write(
          `the key of ${device}: pin it with PUT /v1/projects/{projectUID}/devices/${device}/public-key {"key": "<PEM>"}\n`,
        );
        return;
      }
      // TCP when asked for, or when nothing else would reach the module: a second module on a pty
      // or a device must not take the first one's port.
      const otherLink = options.pty || options.serial || options.board || options.i2c;
      const tcp = options.tcp ?? (otherLink ? undefined : parseHostPort(DEFAULT_MODULE_TCP));
      const running = await startModule({ ...options, tcp });
      // Ready to stop cleanly before telling anyone it is ready.
      onShutdown(
        () => running.close(),
        () => `cardsim module: stopped module ${running.module.deviceUid}; ${moduleStateLine(running)}`,
      );
      process.stdout.write(describeModule(running) + "\n");
      // The first session ends when it ends (a hub elsewhere may be slow or away): said when it does.
      if (running.hub)
        void firstSyncLine(running, `at ${running.hub}`).then((line) => process.stdout.write(line + "\n"));
    });
}

/** How the module's first session (at start) went, once it has ended. */
export async function firstSyncLine(running: RunningModule, where: string): Promise<string> {
  await running.module.sync.idle();
  const synced = running.module.sync.status();
  return synced.alert
    ? `  first sync failed: ${synced.error ?? synced.status} (notes stay on the module until a sync succeeds)`
    : `  synced with the hub: device ${running.module.deviceUid} ${where}`;
}
