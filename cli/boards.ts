import type { Command } from "commander";
import type { BoardDefinition, HeaderPin } from "../boards/BoardDefinition.js";
import { boardNamed, boards } from "../boards/boards.js";

const where = (p: HeaderPin) => `${p.line} (pin ${p.pin})`;

/** One line per board: what `cardsim boards` prints. */
export function boardSummary(def: BoardDefinition): string {
  const serial = def.serial ? def.serial.device : "pty/TCP";
  return `${def.name.padEnd(8)} ${def.title}\n${"".padEnd(9)}serial ${serial}, I2C ${def.i2c.backends.join(" or ")}, ATTN ${where(def.gpio.attn)}, host RESET ${where(def.gpio.hostReset)}`;
}

/** Everything about one board: `cardsim boards NAME`. */
export function boardDetails(def: BoardDefinition): string {
  const lines = [`${def.name}: ${def.title}`, ""];
  if (def.serial) {
    lines.push(
      `Serial    ${def.serial.device} at ${def.serial.baudRate} baud: module TX on ${where(def.serial.txd)} -> host RX, module RX on ${where(def.serial.rxd)} <- host TX`,
      `          ${def.serial.notes}`,
    );
  } else lines.push("Serial    none: use --pty PATH or --tcp HOST:PORT");
  if (def.usbGadget)
    lines.push(
      `USB       ${def.usbGadget.device} (${def.usbGadget.configTxt.join(", ")}): ${def.usbGadget.notes}`,
    );
  lines.push(
    `I2C       backend ${def.i2c.backend}${def.i2c.backends.length > 1 ? ` (or ${def.i2c.backends.filter((b) => b !== def.i2c.backend).join(", ")})` : ""}`,
  );
  if (def.i2c.bsc)
    lines.push(`          BSC target SDA ${where(def.i2c.bsc.sda)}, SCL ${where(def.i2c.bsc.scl)}`);
  if (def.i2c.bridgeDevice !== "-") lines.push(`          RP2040 bridge at ${def.i2c.bridgeDevice}`);
  lines.push(`          ${def.i2c.notes}`);
  lines.push(`GPIO      ATTN ${where(def.gpio.attn)}, host RESET ${where(def.gpio.hostReset)} (active LOW)`);
  lines.push(`          ${def.gpio.aux.map((a) => `${a.name} ${where(a)}`).join(", ")}`);
  if (def.configTxt.length > 0)
    lines.push("", "/boot/firmware/config.txt:", ...def.configTxt.map((l) => `  ${l}`));
  if (def.setup.length > 0) lines.push("", "Setup:", ...def.setup.map((l) => `  ${l}`));
  lines.push("", `Wiring guide: docs/wiring/${def.name}.md`);
  return lines.join("\n");
}

/** `cardsim boards [NAME] [--json]`. */
export function registerBoards(program: Command): void {
  program
    .command("boards")
    .description("list the boards cardsim can run on as the module (serial, I2C, GPIO, config.txt)")
    .argument("[name]", "show one board in full")
    .option("--json", "print the definitions as JSON")
    .action((name: string | undefined, options: { json?: boolean }) => {
      if (name !== undefined) {
        const def = boardNamed(name);
        if (!def) {
          process.stderr.write(`unknown board ${name}; one of ${Object.keys(boards).join(", ")}\n`);
          process.exitCode = 2;
          return;
        }
        process.stdout.write((options.json ? JSON.stringify(def, null, 2) : boardDetails(def)) + "\n");
        return;
      }
      if (options.json) {
        process.stdout.write(JSON.stringify(Object.values(boards), null, 2) + "\n");
        return;
      }
      process.stdout.write(Object.values(boards).map(boardSummary).join("\n") + "\n");
    });
}
