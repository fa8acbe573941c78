import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Clock } from "../core/Clock.js";
import { SeededRandom } from "../core/SeededRandom.js";
import type { BoardDefinition } from "../boards/BoardDefinition.js";
import { boardNamed, boards } from "../boards/boards.js";
import { buildBoard, type BoardRig, type BoardRigOptions } from "../boards/buildBoard.js";
import { findRp2040Bridge } from "../boards/findRp2040Bridge.js";
import type { AttnPin } from "../firmware/attn/AttnPin.js";
import { I2cTarget } from "../firmware/host/I2cTarget.js";
import { SimPowerSource } from "../firmware/PowerSource.js";
import { SimRadioConditions, type SignalPreset } from "../firmware/radio/RadioConditions.js";
import type { GeoPoint } from "../firmware/world/geo.js";
import type { Track } from "../firmware/world/Track.js";
import { World } from "../firmware/world/World.js";
import type { I2cTargetBackend } from "../hil/i2c/I2cTargetBackend.js";
import { DEFAULT_RX_CAPACITY, type SimUartReceiverOptions } from "../hil/links/SimUartReceiver.js";
import type { PtyBridge } from "../hil/links/PtyBridge.js";
import type { SerialDeviceServer } from "../hil/links/SerialDeviceServer.js";
import { SimUart } from "../hil/links/SimUart.js";
import { ModuleLinkServer } from "../hil/ModuleLinkServer.js";
import type { Logger } from "pino";
import type { DischargeCurve, DischargePlayer } from "./DischargeCurve.js";
import type { LogFormat, LogLevel } from "./logLevels.js";
import { readNamedInputs, type RigNamedInputs } from "./rigInputs.js";
import { SimulatedModule, type SimulatedModuleOptions } from "./SimulatedModule.js";
import type { SupplySource } from "./supplyChange.js";
import { WebCryptoCrypto } from "./WebCryptoCrypto.js";
import type { WorldControlServer } from "./WorldControlServer.js";

export interface RigAddress {
  readonly host: string;
  readonly port: number;
}

/** The I2C backend asked for (`parseI2cBackend`): on a board, instead of its default; else alone. */
export type RigI2c = Pick<BoardRigOptions, "i2c" | "simProfile" | "pigpiod" | "bridgePath">;

/**
 * Everything around one module, each part optional: what `cardsim module`, `cardsim up`
 * (`startLocal`), `Scenario` and the rig self-test build their modules with.
 */
export interface ModuleRigOptions extends Pick<
  SimulatedModuleOptions,
  | "variant"
  | "timeKnown"
  | "maxRequestBytes"
  | "strictArgs"
  | "trace"
  | "binaryMax"
  | "energy"
  | "deviceUid"
  | "log"
  | "hub"
> {
  readonly clock: Clock;
  /**
   * What the command line names rather than gives (a hub URL, a track or discharge file, an I2C
   * backend's text): read and checked first, they stand for `hub`, `world.track`, `discharge`, `i2c`.
   */
  readonly named?: RigNamedInputs;
  /** Log through a pino logger of this level and format (`log`, `hilLog`, `onSerialStatus`). */
  readonly logging?: { readonly level: LogLevel; readonly format: LogFormat };
  /**
   * Seeds the module's identity, keys and randomness: the same seed makes the same DeviceUID.
   * Without one the identity is random (keys and randomness from the operating system), made at
   * the module's first boot and kept in its flash from then on.
   */
  readonly seed?: number | string;
  /** The flash: a directory (locked while the module runs), or as `SimulatedModule` takes it. */
  readonly flash?: SimulatedModuleOptions["flash"] | { readonly dir: string; readonly capacity?: number };
  /** The board whose pins the module runs on: ATTN, AUX, I2C, the host's RESET and BOOT lines. */
  readonly board?: string | BoardDefinition;
  readonly boardOptions?: Omit<BoardRigOptions, "clock">;
  /** The I2C backend: on a board, instead of its default; without one, a backend of its own. */
  readonly i2c?: RigI2c;
  /** Put the module's I2C target on that backend (default true; a harness attaches its own). */
  readonly attachI2cTarget?: boolean;
  /** Wraps the ATTN output (the board's, or none), e.g. to watch it. */
  readonly attnPin?: (boardPin: AttnPin | undefined) => AttnPin | undefined;
  /** Firmware update options; on a board the host lines are the board's unless these name others. */
  readonly dfu?: SimulatedModuleOptions["dfu"];
  /**
   * Where the module is, a track it travels along, and a Mojo power monitor on its supply
   * (`card.power`) (a world of its own otherwise).
   */
  readonly world?: { readonly position?: GeoPoint; readonly track?: Track; readonly mojo?: boolean };
  /** The supply: a source of the caller's, or its source and volts (default: a battery at 3.9 V). */
  readonly supply?: SimPowerSource | { readonly source?: SupplySource; readonly volts?: number };
  /** The radio: conditions of the caller's, or a signal preset and each exchange's latency. */
  readonly radio?: SimRadioConditions | { readonly signal?: SignalPreset; readonly latencyMs?: number };
  /** A battery discharge curve to play on the supply. */
  readonly discharge?: DischargeCurve;
  /** Serve the world control API (`cardsim world`) there. */
  readonly control?: RigAddress;
  /** Serve the serial line protocol on TCP there (port 0 picks one). */
  readonly tcp?: RigAddress;
  /** A virtual serial device at this path (socat). */
  readonly pty?: string;
  /** A serial device `DEV[@BAUD]` (the board's own by default on a board that has one). */
  readonly serial?: string;
  /** The receive buffer on the pty and the serial device (0: unlimited). */
  readonly rxBuffer?: number;
  /** Open a session at once, as a real module does at power-on (with a hub). */
  readonly syncAtStart?: boolean;
  /** Messages of the board and its backends. */
  readonly hilLog?: (message: string, fields?: Record<string, unknown>) => void;
  /** The serial device opened, or went away (it is reopened when it is back). */
  readonly onSerialStatus?: (status: {
    readonly device: string;
    readonly open: boolean;
    readonly error?: string;
  }) => void;
}

/** A module with everything around it, running. */
export interface ModuleRig {
  readonly simulated: SimulatedModule;
  readonly world: World;
  readonly power: SimPowerSource;
  readonly radio: SimRadioConditions;
  /** The board's pins and links, on a board. */
  readonly board?: BoardRig;
  /** The backend the module's I2C target is on, when it has one. */
  readonly i2c?: I2cTargetBackend;
  readonly tcp?: ModuleLinkServer;
  readonly pty?: PtyBridge;
  readonly serial?: SerialDeviceServer;
  readonly control?: WorldControlServer;
  /** The discharge curves played on the supply (with `discharge` or `control`). */
  readonly discharge?: DischargePlayer;
  /** The logger made for `logging`: at most warnings until the caller sets its level. */
  readonly logger?: Logger;
  /** Stops everything, the last part started first. */
  close(): Promise<void>;
}

/**
 * A part of the rig that would not start: a board's lines, a device, a tool, or (with `address`) a
 * port to listen on. Its message is the part's own; `cause` is what the part threw.
 */
export class RigPartError extends Error {
  override readonly name = "RigPartError";
  constructor(
    readonly part: "board" | "pty" | "serial" | "i2c" | "tcp" | "control",
    cause: unknown,
    readonly address?: RigAddress,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

async function part<T>(name: RigPartError["part"], work: () => T | Promise<T>, address?: RigAddress) {
  try {
    return await work();
  } catch (error) {
    throw new RigPartError(name, error, address);
  }
}

type Closers = (() => Promise<void> | void)[];

/**
 * Builds and starts a module and the parts around it; a part that fails stops those started, and
 * removes the flash directory if this start made it (a failed start leaves nothing behind).
 */
export async function assembleModule(given: ModuleRigOptions): Promise<ModuleRig> {
  const options = await resolved(given);
  const closers: Closers = [];
  const made = options.flash && "dir" in options.flash ? outermostMissing(options.flash.dir) : undefined;
  if (made) closers.push(() => rm(made, { recursive: true, force: true }));
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const board = await startBoard(options, closers);
    const surroundings = makeSurroundings(options, closers);
    const simulated = await bootModule(options, board, surroundings);
    closers.push(() => simulated.close());
    const discharge = await startDischarge(options, surroundings.power, closers);
    const links = await startLinks(options, simulated, board, closers);
    const control = await startControl(options, { ...surroundings, discharge, simulated }, closers);
    if (options.syncAtStart && options.hub) simulated.module.sync.request({ why: "boot" });
    if (made) closers.shift(); // started: the directory is the module's flash from now on
    return {
      simulated,
      ...surroundings,
      ...(board ? { board } : {}),
      ...links,
      ...(control ? { control } : {}),
      ...(discharge ? { discharge } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** The options with what they name read, and with the logger `logging` asks for. */
async function resolved(options: ModuleRigOptions): Promise<ModuleRigOptions & { logger?: Logger }> {
  const read = options.named ? await readNamedInputs(options.named, options.board !== undefined) : {};
  const logs = options.logging ? (await import("./logging.js")).moduleLogger(options.logging) : {};
  return {
    ...options,
    ...logs,
    ...(read.hub ? { hub: read.hub } : {}),
    ...(read.discharge ? { discharge: read.discharge } : {}),
    ...(read.i2c ? { i2c: read.i2c } : {}),
    ...(read.track ? { world: { ...options.world, track: read.track } } : {}),
  };
}

/** The outermost folder of `dir` that does not exist yet (what making `dir` would create), if any. */
function outermostMissing(dir: string): string | undefined {
  let missing: string | undefined;
  for (let path = resolve(dir); !existsSync(path); path = dirname(path)) missing = path;
  return missing;
}

/** The board first: the module's ATTN output, AUX pins and the host's lines are its GPIO lines. */
async function startBoard(options: ModuleRigOptions, closers: Closers): Promise<BoardRig | undefined> {
  if (options.board === undefined) return undefined;
  const def = typeof options.board === "string" ? boardNamed(options.board) : options.board;
  if (!def) {
    throw new RigPartError(
      "board",
      new Error(`unknown board ${String(options.board)}; one of ${Object.keys(boards).join(", ")}`),
    );
  }
  const wanted = { ...options.boardOptions, ...options.i2c };
  const kind = wanted.i2c ?? def.i2c.backend;
  const rig = await part("board", () =>
    buildBoard(def, {
      ...wanted,
      clock: options.clock,
      ...(kind === "rp2040-bridge" && !wanted.bridgePath ? { bridgePath: findRp2040Bridge() } : {}),
      ...(options.hilLog ? { log: options.hilLog } : {}),
    }),
  );
  closers.push(() => rig.close());
  return rig;
}

interface Surroundings {
  readonly world: World;
  readonly power: SimPowerSource;
  readonly radio: SimRadioConditions;
}

function makeSurroundings(options: ModuleRigOptions, closers: Closers): Surroundings {
  const { clock } = options;
  const world = new World({
    clock,
    ...(options.world?.position ? { position: options.world.position } : {}),
  });
  closers.push(() => world.dispose());
  if (options.world?.track) world.playTrack(options.world.track);
  if (options.world?.mojo) world.setMojo(true);
  const supply = options.supply ?? {};
  let power: SimPowerSource;
  if (supply instanceof SimPowerSource) power = supply;
  else {
    const external = supply.source === "usb" || supply.source === "line";
    power = new SimPowerSource(supply.volts ?? (external ? 5 : 3.9), external);
  }
  const wanted = options.radio ?? {};
  let radio: SimRadioConditions;
  if (wanted instanceof SimRadioConditions) radio = wanted;
  else {
    radio = new SimRadioConditions(clock);
    if (wanted.signal) radio.signal(wanted.signal);
    if (wanted.latencyMs !== undefined) radio.latency(wanted.latencyMs);
  }
  return { world, power, radio };
}

/** The identity: seeded (repeatable), or random from the operating system and kept in the flash. */
function identity(seed: number | string | undefined): Partial<SimulatedModuleOptions> {
  if (seed !== undefined) return { seed };
  return {
    random: () => new SeededRandom(randomBytes(16).toString("hex")),
    crypto: new WebCryptoCrypto(),
  };
}

async function flashOf(options: ModuleRigOptions): Promise<SimulatedModuleOptions["flash"]> {
  const flash = options.flash;
  if (!flash || !("dir" in flash)) return flash;
  const [{ openFlashStore }, { NodeFlashFs }] = await Promise.all([
    import("../hil/storage/openFlashStore.js"),
    import("../hil/storage/NodeFlashFs.js"),
  ]);
  const store = await openFlashStore(flash.dir, flash.capacity ? { capacity: flash.capacity } : {});
  return { store, images: new NodeFlashFs(flash.dir) };
}

async function bootModule(
  options: ModuleRigOptions,
  board: BoardRig | undefined,
  { world, power, radio }: Surroundings,
): Promise<SimulatedModule> {
  const flash = await flashOf(options);
  const attnPin = options.attnPin ? options.attnPin(board?.attnPin) : board?.attnPin;
  const dfu = board ? { hostLines: board.hostLines, ...options.dfu } : options.dfu;
  const { clock, variant, timeKnown, maxRequestBytes, strictArgs, trace, binaryMax, energy, log, hub } =
    options;
  const { deviceUid } = options;
  return SimulatedModule.boot({
    clock,
    ...identity(options.seed),
    ...(flash ? { flash } : {}),
    world,
    power,
    radio,
    ...(hub ? { hub } : {}),
    ...(variant !== undefined ? { variant } : {}),
    ...(log ? { log } : {}),
    ...(timeKnown !== undefined ? { timeKnown } : {}),
    ...(maxRequestBytes !== undefined ? { maxRequestBytes } : {}),
    ...(strictArgs !== undefined ? { strictArgs } : {}),
    ...(trace !== undefined ? { trace } : {}),
    ...(binaryMax !== undefined ? { binaryMax } : {}),
    ...(energy ? { energy } : {}),
    ...(deviceUid ? { deviceUid } : {}),
    ...(attnPin ? { attnPin } : {}),
    ...(board && board.board.name !== "virtual" ? { auxPins: board.auxPins } : {}),
    ...(dfu ? { dfu } : {}),
  }).catch(async (error: unknown) => {
    if (flash && "store" in flash) await flash.store.close().catch(() => undefined);
    throw error;
  });
}

async function startDischarge(
  options: ModuleRigOptions,
  power: SimPowerSource,
  closers: Closers,
): Promise<DischargePlayer | undefined> {
  if (!options.discharge && !options.control) return undefined;
  const { DischargePlayer } = await import("./DischargeCurve.js");
  const player = new DischargePlayer(power, options.clock);
  if (options.discharge) player.playCurve(options.discharge);
  closers.push(() => player.stop());
  return player;
}

type Links = Pick<ModuleRig, "tcp" | "pty" | "serial" | "i2c">;

/** The host's links: TCP, a pty, a serial device, and the I2C target. */
async function startLinks(
  options: ModuleRigOptions,
  simulated: SimulatedModule,
  board: BoardRig | undefined,
  closers: Closers,
): Promise<Links> {
  const { clock } = options;
  const handler = simulated.lineHandler();
  // Serial devices and ptys get the module's finite receive buffer, as a real module's pins do;
  // the TCP port stays a plain line protocol for tools.
  const rx: SimUartReceiverOptions | false =
    options.rxBuffer === 0 ? false : { capacity: options.rxBuffer ?? DEFAULT_RX_CAPACITY };
  const links: { -readonly [K in keyof Links]: Links[K] } = {};
  if (options.tcp) {
    const { host, port } = options.tcp;
    const server = await part(
      "tcp",
      () => ModuleLinkServer.listen(handler, host, port, undefined, { notices: true }),
      options.tcp,
    );
    closers.push(() => server.close());
    links.tcp = server;
  }
  if (options.pty) {
    const path = options.pty;
    const { PtyBridge } = await import("../hil/links/PtyBridge.js");
    const uartPort = await ModuleLinkServer.listen(handler, "127.0.0.1", 0, (h, link) =>
      SimUart.attach(h, link, { clock, rx, name: "pty" }),
    );
    closers.push(() => uartPort.close());
    const bridge = await part("pty", () => PtyBridge.open(path, uartPort.address));
    closers.push(() => bridge.close());
    links.pty = bridge;
  }
  const device =
    options.serial ?? (board?.serial ? `${board.serial.path}@${board.serial.baudRate}` : undefined);
  if (device) {
    const { SerialDeviceServer } = await import("../hil/links/SerialDeviceServer.js");
    const status = options.onSerialStatus;
    const server = await part("serial", () =>
      SerialDeviceServer.start(handler, device, {
        clock,
        rx,
        ...(status ? { onStatus: (s: { open: boolean; error?: string }) => status({ device, ...s }) } : {}),
      }),
    );
    closers.push(() => server.close());
    links.serial = server;
  }
  const i2c = await attachI2c(options, handler, board, closers);
  if (i2c) links.i2c = i2c;
  return links;
}

/** The module's I2C target: on the board's backend, or on a backend of its own without a board. */
async function attachI2c(
  options: ModuleRigOptions,
  handler: ReturnType<SimulatedModule["lineHandler"]>,
  board: BoardRig | undefined,
  closers: Closers,
): Promise<I2cTargetBackend | undefined> {
  if (options.attachI2cTarget === false) return undefined;
  if (board) {
    if (!board.i2c) return undefined;
    await part("i2c", () => board.attachI2c(new I2cTarget(handler)));
    return board.i2c;
  }
  const choice = options.i2c ?? {};
  if (!choice.i2c || choice.i2c === "none") return undefined;
  const backend = await part("i2c", () => standaloneI2c(choice, options));
  closers.push(() => backend.close());
  await part("i2c", () => backend.attach(new I2cTarget(handler)));
  return backend;
}

/** An I2C backend without a board: the BSC through pigpiod, or an RP2040 bridge. */
async function standaloneI2c(choice: RigI2c, options: ModuleRigOptions): Promise<I2cTargetBackend> {
  const log = options.hilLog ?? (() => undefined);
  if (choice.i2c === "sim") {
    throw new Error(
      "the software bus has no controller outside this process: use it from the harness (cardsim/harness), or choose pigpiod or rp2040",
    );
  }
  if (choice.i2c === "pigpiod-bsc") {
    const { PigpiodBscBackend } = await import("../hil/i2c/PigpiodBscBackend.js");
    return new PigpiodBscBackend({ ...choice.pigpiod, clock: options.clock, log });
  }
  const { Rp2040BridgeBackend } = await import("../hil/i2c/Rp2040BridgeBackend.js");
  return new Rp2040BridgeBackend({ path: choice.bridgePath ?? findRp2040Bridge(), log });
}

async function startControl(
  options: ModuleRigOptions,
  parts: Surroundings & {
    readonly discharge: DischargePlayer | undefined;
    readonly simulated: SimulatedModule;
  },
  closers: Closers,
): Promise<WorldControlServer | undefined> {
  if (!options.control) return undefined;
  const [{ WorldControlServer }, { ModuleMonitor }] = await Promise.all([
    import("./WorldControlServer.js"),
    import("./ModuleMonitor.js"),
  ]);
  const { host, port } = options.control;
  const { world, radio, power, discharge, simulated } = parts;
  const monitor = new ModuleMonitor(simulated, world, power, options.clock);
  closers.push(() => monitor.close());
  const server = await part(
    "control",
    () =>
      WorldControlServer.listen(world, host, port, {
        radio,
        power,
        monitor,
        ...(discharge ? { discharge } : {}),
      }),
    options.control,
  );
  closers.push(() => server.close());
  return server;
}
