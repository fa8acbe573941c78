import type { Clock } from "../core/Clock.js";
import { sleep } from "../core/Clock.js";
import type { BoardDefinition, HeaderPin } from "../boards/BoardDefinition.js";
import { I2cTarget } from "../firmware/host/I2cTarget.js";
import type { I2cController } from "../hil/i2c/I2cController.js";
import type { I2cHardwareProfile } from "../hil/i2c/I2cHardwareProfile.js";
import type { I2cTargetPort } from "../hil/i2c/I2cTargetBackend.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import { assembleModule } from "../runtime/assembleModule.js";
import { I2cHostTransport } from "./host/I2cHostTransport.js";
import { NoteCHost } from "./host/NoteCHost.js";
import { NOTE_C_TIMING } from "./host/NoteCTiming.js";

/** A pin a check took part in: where it is and what it does there. */
export interface SelfTestPin {
  /** `pin 8`, or `Pico GP4 (pin 6)` off the Pi's header, or `software bus`. */
  readonly where: string;
  /** GPIO line name, when it is one of the Pi's. */
  readonly line?: string;
  readonly role: string;
}

/** One check of the self-test and its verdict; its pins pass or fail with it. */
export interface SelfTestCheck {
  readonly name: string;
  readonly pins: readonly SelfTestPin[];
  readonly pass: boolean;
  readonly detail: string;
}

export interface RigSelfTestOptions {
  readonly board: BoardDefinition;
  /** Real time on a rig; the checks wait on it. */
  readonly clock: Clock;
  /** The board's UART with its TX wired to its RX (a jumper); leave out to skip the check. */
  readonly uart?: ByteLink;
  /**
   * The module's I2C target and a host for it: `host` is the Pi's own I2C-1 (`i2c-bus` on
   * /dev/i2c-1) wired to the target's pins (the BSC pins, or the RP2040 bridge's), or the
   * software bus in CI; `attach` puts a target on the board's backend.
   */
  readonly i2c?: {
    readonly host: I2cController;
    readonly attach: (target: I2cTargetPort) => Promise<void>;
    readonly profile: I2cHardwareProfile;
    /** Which backend serves the target: its pins are the ones wired to I2C-1. */
    readonly backend: "sim" | "pigpiod-bsc" | "rp2040-bridge";
  };
  /** How long to wait for looped-back bytes (default 2000 ms). */
  readonly timeoutMs?: number;
}

const headerPin = (p: HeaderPin, role: string): SelfTestPin => ({
  where: `pin ${p.pin}`,
  line: p.line,
  role,
});

/**
 * The rig's loopback self-test, done by the program instead of by hand: bytes sent on the UART
 * must come back on its RX (TX jumpered to RX); the Pi's own I2C controller must find the module's
 * target at 0x17 and have a note-c host (with the MTU the hardware allows) get `card.version`
 * answered through it. Each check names the pins it proves.
 */
export async function runRigSelfTest(options: RigSelfTestOptions): Promise<SelfTestCheck[]> {
  const checks: SelfTestCheck[] = [];
  if (options.uart) checks.push(await uartLoopback(options, options.uart));
  if (options.i2c) checks.push(...(await i2cLoopback(options, options.i2c)));
  return checks;
}

/** Every byte value, then a line: framing, baud rate and both wires all show in what comes back. */
const PATTERN = Uint8Array.from([...Array.from({ length: 256 }, (_, i) => i), 0x0d, 0x0a]);

async function uartLoopback(options: RigSelfTestOptions, link: ByteLink): Promise<SelfTestCheck> {
  const serial = options.board.serial;
  const pins = serial
    ? [headerPin(serial.txd, "UART TXD (looped to RXD)"), headerPin(serial.rxd, "UART RXD")]
    : [{ where: "serial device", role: "TX looped to RX" }];
  const received: number[] = [];
  link.onData((bytes) => received.push(...bytes));
  link.write(PATTERN);
  const deadline = options.clock.now() + (options.timeoutMs ?? 2000);
  while (received.length < PATTERN.length && options.clock.now() < deadline) await sleep(options.clock, 20);
  const mismatch = PATTERN.findIndex((b, i) => received[i] !== b);
  const pass = received.length === PATTERN.length && mismatch < 0;
  const detail = pass
    ? `${PATTERN.length} bytes sent came back unchanged`
    : received.length === 0
      ? "nothing came back: is TX wired to RX (and nothing else holding the UART)?"
      : `${received.length} of ${PATTERN.length} bytes came back, the first wrong one at byte ${mismatch < 0 ? received.length : mismatch}: check the wiring and the baud rate`;
  return { name: "UART loopback", pins, pass, detail };
}

async function i2cLoopback(
  options: RigSelfTestOptions,
  i2c: NonNullable<RigSelfTestOptions["i2c"]>,
): Promise<SelfTestCheck[]> {
  const controller = options.board.i2c.controller;
  const target = targetPins(options.board, i2c.backend);
  const pins: SelfTestPin[] = [
    ...(controller
      ? [headerPin(controller.sda, "I2C-1 SDA (the host)"), headerPin(controller.scl, "I2C-1 SCL (the host)")]
      : []),
    ...target,
  ];
  // The module as every module is built; its target goes on the backend under test.
  const rig = await assembleModule({ clock: options.clock, seed: "selftest", timeKnown: true });
  const simulated = rig.simulated;
  try {
    const port = new I2cTarget(simulated.lineHandler());
    await i2c.attach(port);
    // Address check: a poll query ([0][0]) the target must acknowledge.
    const probe = await i2c.host.write(port.address, Uint8Array.of(0, 0));
    const address = `0x${port.address.toString(16)}`;
    const wires: SelfTestCheck = {
      name: "I2C wires",
      pins,
      pass: probe.acked,
      detail: probe.acked
        ? `the module's target acknowledged at ${address}`
        : `nothing acknowledged at ${address}: check SDA and SCL (both), the pull-ups, and that the backend runs (${i2c.backend})`,
    };
    if (!probe.acked) {
      return [
        wires,
        { name: "I2C requests", pins: [], pass: false, detail: "not tried: no target on the bus" },
      ];
    }
    // Without clock stretching a read must fit the FIFO: `[available][R]` and R bytes (the BSC's
    // 16 bytes: MTU 14, docs/i2c.md).
    const mtu = i2c.profile.clockStretch
      ? NOTE_C_TIMING.i2cMtu
      : Math.min(NOTE_C_TIMING.i2cMtu, i2c.profile.txFifo - 2, i2c.profile.rxFifo - 1);
    const host = new NoteCHost({
      clock: options.clock,
      transport: new I2cHostTransport(i2c.host, options.clock, { ...NOTE_C_TIMING, i2cMtu: mtu }),
      timing: { i2cMtu: mtu },
    });
    const reply = await host.request({ req: "card.version" });
    const device = typeof reply["device"] === "string" ? reply["device"] : undefined;
    return [
      wires,
      {
        name: "I2C requests",
        pins: [],
        pass: device === simulated.module.deviceUid,
        detail: device
          ? `a note-c host (MTU ${mtu}) reset the link and card.version answered (${device})`
          : `card.version failed over I2C (MTU ${mtu}): ${JSON.stringify(reply)}`,
      },
    ];
  } finally {
    await rig.close();
  }
}

function targetPins(board: BoardDefinition, backend: string): SelfTestPin[] {
  if (backend === "pigpiod-bsc" && board.i2c.bsc) {
    return [
      headerPin(board.i2c.bsc.sda, "BSC SDA (the module's target)"),
      headerPin(board.i2c.bsc.scl, "BSC SCL (the module's target)"),
    ];
  }
  if (backend === "rp2040-bridge") {
    return [
      { where: "Pico GP4 (pin 6)", role: "bridge SDA (the module's target)" },
      { where: "Pico GP5 (pin 7)", role: "bridge SCL (the module's target)" },
    ];
  }
  return [{ where: "software bus", role: "the module's target" }];
}
