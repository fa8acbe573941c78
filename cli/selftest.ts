import { type Command } from "commander";
import type { RigSelfTestOptions, SelfTestCheck } from "../harness/RigSelfTest.js";
import type { I2cController } from "../hil/i2c/I2cController.js";
import type { ByteLink } from "../hil/links/ByteLink.js";
import { CliError, userFacing } from "./CliError.js";
import { parseInteger } from "./options.js";

interface SelftestOptions {
  board: string;
  serial?: string;
  uart: boolean;
  i2c: string | boolean;
  i2cBus?: number;
  gpiodTools?: string;
  timeout: number;
}

/** One line per pin (a check's pins pass or fail with it), then the checks that have no pins. */
export function formatSelfTest(board: string, checks: readonly SelfTestCheck[]): string {
  const lines = [`cardsim selftest ${board}`];
  for (const check of checks) {
    const verdict = check.pass ? "pass" : "FAIL";
    if (check.pins.length === 0) {
      lines.push(`  ${verdict}  ${check.name}: ${check.detail}`);
      continue;
    }
    for (const [i, pin] of check.pins.entries()) {
      const where = `${pin.where}${pin.line ? ` ${pin.line}` : ""}`.padEnd(16);
      lines.push(`  ${verdict}  ${where} ${pin.role}${i === 0 ? `: ${check.detail}` : ""}`);
    }
  }
  const passed = checks.filter((c) => c.pass).length;
  lines.push(`${passed} of ${checks.length} checks passed`);
  return lines.join("\n");
}

/** `cardsim selftest --board NAME`: the rig's loopback self-test. */
export function registerSelftestCommand(program: Command): void {
  program
    .command("selftest")
    .description(
      "check a rig's wiring with loopbacks: the UART's TX jumpered to its RX, and the Pi's own I2C-1 (pins 3 and 5) wired to the module's I2C target pins; prints pass or FAIL per pin (exit status 1 on a failure)",
    )
    .requiredOption("--board <NAME>", "the board: pi3, pi4, pi5, zero2w (virtual: the software bus)")
    .option("--serial <DEV[@BAUD]>", "the UART to loop back (default: the board's)")
    .option("--no-uart", "skip the UART check (no jumper)")
    .option(
      "--i2c <BACKEND>",
      "the target's backend (default: the board's): pigpiod[:HOST[:PORT]], rp2040:DEVICE",
    )
    .option("--no-i2c", "skip the I2C check")
    .option("--i2c-bus <N>", "the controller playing the host: /dev/i2c-N (default 1)", parseInteger)
    .option("--gpiod-tools <DIR>", "folder of gpioset, gpioget and gpiomon when they are not on PATH")
    .option("--timeout <MS>", "how long to wait for looped-back bytes", parseInteger, 2000)
    .action(async (options: SelftestOptions) => {
      const [
        { boardNamed, boards },
        { buildBoard },
        { parseI2cBackend },
        { SystemClock },
        { runRigSelfTest },
      ] = await Promise.all([
        import("../boards/boards.js"),
        import("../boards/buildBoard.js"),
        import("../runtime/parseI2cBackend.js"),
        import("../runtime/SystemClock.js"),
        import("../harness/RigSelfTest.js"),
      ]);
      const def = boardNamed(options.board);
      if (!def) {
        throw new CliError(`unknown board ${options.board}; one of ${Object.keys(boards).join(", ")}`);
      }
      const clock = new SystemClock();
      const i2cChoice =
        typeof options.i2c === "string" ? await userFacing(() => parseI2cBackend(options.i2c as string)) : {};
      const wantI2c = options.i2c !== false && i2cChoice.i2c !== "none";
      const rig = await userFacing(async () => {
        const { findRp2040Bridge } = await import("../boards/findRp2040Bridge.js");
        const kind = i2cChoice.i2c ?? def.i2c.backend;
        return buildBoard(def, {
          clock,
          ...i2cChoice,
          ...(!wantI2c ? { i2c: "none" as const } : {}),
          ...(wantI2c && kind === "rp2040-bridge" && !i2cChoice.bridgePath
            ? { bridgePath: findRp2040Bridge() }
            : {}),
          ...(def.name === "virtual" ? { simProfile: "bsc" } : {}),
          ...(options.gpiodTools ? { gpiodToolsDir: options.gpiodTools } : {}),
        });
      });
      const closers: (() => Promise<void>)[] = [() => rig.close()];
      // The system clock's timers do not keep Node running (a server's socket usually does):
      // hold the process while the checks wait on them.
      const running = setInterval(() => undefined, 60_000);
      try {
        const serialSpec =
          options.serial ?? (rig.serial ? `${rig.serial.path}@${rig.serial.baudRate}` : undefined);
        let uart: ByteLink | undefined;
        if (options.uart && serialSpec) {
          const { SerialPortLink } = await import("../hil/links/SerialPortLink.js");
          const link = await userFacing(() => SerialPortLink.open(serialSpec));
          closers.push(() => link.close());
          uart = link;
        }
        let i2c: RigSelfTestOptions["i2c"];
        if (wantI2c && rig.i2c) {
          let host: I2cController | undefined = rig.simBus;
          if (!host) {
            const { I2cBusController } = await import("../hil/i2c/I2cBusController.js");
            const bus = await userFacing(() =>
              I2cBusController.open(options.i2cBus ?? def.i2c.controller?.bus ?? 1),
            );
            closers.push(() => bus.close());
            host = bus;
          }
          i2c = {
            host,
            attach: (target) => rig.attachI2c(target),
            profile: rig.i2c.profile,
            backend: rig.i2c.kind,
          };
        }
        if (!uart && !i2c) {
          throw new CliError(
            "nothing to check: the board has no UART (give --serial DEV) and the I2C check is off",
          );
        }
        const checks = await runRigSelfTest({
          board: def,
          clock,
          ...(uart ? { uart } : {}),
          ...(i2c ? { i2c } : {}),
          timeoutMs: options.timeout,
        });
        process.stdout.write(formatSelfTest(def.name, checks) + "\n");
        if (checks.some((c) => !c.pass)) process.exitCode = 1;
      } finally {
        for (const close of closers.reverse()) await close().catch(() => undefined);
        clearInterval(running);
      }
    });
}
