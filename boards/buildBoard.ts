import type { AttnPin } from "../firmware/attn/AttnPin.js";
import type { Clock } from "../core/Clock.js";
import { GpioAttnPin } from "../hil/gpio/GpioAttnPin.js";
import type { GpioChip } from "../hil/gpio/GpioChip.js";
import { GpiodToolsChip } from "../hil/gpio/GpiodToolsChip.js";
import { GpioAuxPins } from "../hil/gpio/GpioAuxPins.js";
import { HostBootLine } from "../hil/gpio/HostBootLine.js";
import { HostResetLine } from "../hil/gpio/HostResetLine.js";
import type { HostDfuLines } from "../firmware/dfu/HostDfuLines.js";
import { SimGpioChip } from "../hil/gpio/SimGpioChip.js";
import { I2C_PROFILES, type I2cHardwareProfile } from "../hil/i2c/I2cHardwareProfile.js";
import type { I2cTargetBackend, I2cTargetPort } from "../hil/i2c/I2cTargetBackend.js";
import { PigpiodBscBackend } from "../hil/i2c/PigpiodBscBackend.js";
import { Rp2040BridgeBackend } from "../hil/i2c/Rp2040BridgeBackend.js";
import { SimI2cBus } from "../hil/i2c/SimI2cBus.js";
import type { BoardDefinition, I2cBackendKind } from "./BoardDefinition.js";
import { boardNamed, boards } from "./boards.js";

export interface BoardRigOptions {
  /** Clock of the harness or the runtime (RESET pulses, polling). */
  readonly clock: Clock;
  /** I2C backend instead of the board's default, or `none` for a serial-only rig. */
  readonly i2c?: I2cBackendKind | "none";
  /** The RP2040 bridge's serial device (required for that backend). */
  readonly bridgePath?: string;
  readonly pigpiod?: { readonly host?: string; readonly port?: number; readonly pollMs?: number };
  /** Hardware the software bus models (virtual board): ideal, bsc or pico. */
  readonly simProfile?: I2cHardwareProfile | string;
  /** GPIO chip to use instead of the board's (a SimGpioChip in tests). */
  readonly gpio?: GpioChip;
  /** Folder of the gpiod tools when they are not on PATH. */
  readonly gpiodToolsDir?: string;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** A board's links and pins, claimed and ready; boot the module with `attnPin`, then `attachI2c`. */
export interface BoardRig {
  readonly board: BoardDefinition;
  /** Serial device toward the host and its rate (undefined on the virtual board: use a pty/TCP). */
  readonly serial: { readonly path: string; readonly baudRate: number } | undefined;
  readonly gpio: GpioChip;
  /** The module's ATTN output (pass to `Module.boot({ attnPin })`). */
  readonly attnPin: AttnPin;
  /** The host MCU's RESET line, released (HIGH). */
  readonly hostReset: HostResetLine;
  /** The host MCU's BOOT line, released (when the board names one). */
  readonly hostBoot: HostBootLine | undefined;
  /** RESET and BOOT as the module drives them in an outboard update (`card.dfu`). */
  readonly hostLines: HostDfuLines;
  /** AUX1..4 line names on the GPIO chip, for whoever drives them. */
  readonly aux: Readonly<Record<string, string>>;
  /** The module's AUX1..4 pins on those lines (pass to the module through `withAuxPins`). */
  readonly auxPins: GpioAuxPins;
  readonly i2c: I2cTargetBackend | undefined;
  /** The software bus on the virtual board: hosts in the same process use it as their controller. */
  readonly simBus: SimI2cBus | undefined;
  /** Puts the module's I2C target on the board's bus. */
  attachI2c(target: I2cTargetPort): Promise<void>;
  /** Releases every line and closes the I2C backend. */
  close(): Promise<void>;
}

/** Builds the links and pins of a board (by name or definition). */
export async function buildBoard(
  board: string | BoardDefinition,
  options: BoardRigOptions,
): Promise<BoardRig> {
  const def = typeof board === "string" ? boardNamed(board) : board;
  if (!def) throw new Error(`unknown board ${String(board)}; one of ${Object.keys(boards).join(", ")}`);
  const clock = options.clock;
  const ownsGpio = options.gpio === undefined;
  const gpio =
    options.gpio ??
    (def.name === "virtual"
      ? new SimGpioChip(clock)
      : new GpiodToolsChip({
          ...(def.gpio.chip ? { chip: def.gpio.chip } : {}),
          ...(options.gpiodToolsDir ? { toolsDir: options.gpiodToolsDir } : {}),
        }));
  const i2cKind = options.i2c ?? def.i2c.backend;
  if (i2cKind !== "none" && !def.i2c.backends.includes(i2cKind))
    throw new Error(
      `board ${def.name} cannot use the ${i2cKind} I2C backend (it has: ${def.i2c.backends.join(", ")})`,
    );

  let simBus: SimI2cBus | undefined;
  let i2c: I2cTargetBackend | undefined;
  if (i2cKind === "sim") {
    const profile =
      typeof options.simProfile === "string" ? I2C_PROFILES[options.simProfile] : options.simProfile;
    if (typeof options.simProfile === "string" && !profile)
      throw new Error(
        `unknown I2C profile ${options.simProfile}; one of ${Object.keys(I2C_PROFILES).join(", ")}`,
      );
    i2c = simBus = new SimI2cBus({ clock, ...(profile ? { profile } : {}) });
  } else if (i2cKind === "pigpiod-bsc") {
    i2c = new PigpiodBscBackend({ ...options.pigpiod, clock, ...(options.log ? { log: options.log } : {}) });
  } else if (i2cKind === "rp2040-bridge") {
    if (!options.bridgePath)
      throw new Error(`board ${def.name}: the RP2040 bridge needs its device path (${def.i2c.bridgeDevice})`);
    i2c = new Rp2040BridgeBackend({ path: options.bridgePath, ...(options.log ? { log: options.log } : {}) });
  }

  // ATTN idles HIGH (the module's level before anything arms it); RESET is released. RESET is
  // driven open-drain: the Pi only ever pulls it LOW, so it never fights the host's own reset
  // circuit, its reset button or a debug probe on the same line (docs/wiring).
  const attnLine = await gpio.output(def.gpio.attn.line, { initial: true, consumer: "cardsim ATTN" });
  let resetLine;
  try {
    resetLine = await gpio.output(def.gpio.hostReset.line, {
      initial: true,
      drive: "open-drain",
      consumer: "cardsim host RESET",
    });
  } catch (error) {
    await attnLine.release();
    throw error;
  }
  const hostReset = new HostResetLine(resetLine, clock);
  let hostBoot: HostBootLine | undefined;
  try {
    hostBoot = def.gpio.hostBoot ? await HostBootLine.claim(gpio, def.gpio.hostBoot.line) : undefined;
  } catch (error) {
    await attnLine.release();
    await resetLine.release();
    throw error;
  }
  const auxPins = new GpioAuxPins(
    gpio,
    def.gpio.aux.map((a) => a.line),
    {
      clock,
      ...(options.log
        ? { onError: (error) => options.log!("AUX pin change failed", { error: String(error) }) }
        : {}),
    },
  );
  let attached = false;
  return {
    board: def,
    serial: def.serial ? { path: def.serial.device, baudRate: def.serial.baudRate } : undefined,
    gpio,
    attnPin: new GpioAttnPin(attnLine),
    hostReset,
    hostBoot,
    hostLines: {
      reset: (asserted) => (asserted ? hostReset.hold() : hostReset.release()),
      boot: (high) => hostBoot?.drive(high),
    },
    aux: Object.fromEntries(def.gpio.aux.map((a) => [a.name, a.line])),
    auxPins,
    i2c,
    simBus,
    async attachI2c(target) {
      if (!i2c) throw new Error(`board ${def.name} was built without an I2C backend`);
      await i2c.attach(target);
      attached = true;
    },
    async close() {
      if (i2c && attached) await i2c.close();
      await attnLine.release();
      await resetLine.release();
      await hostBoot?.release();
      await auxPins.close();
      if (ownsGpio) await gpio.close();
    },
  };
}
