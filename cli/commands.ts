import type { Command } from "commander";
import { registerBoards } from "./boards.js";
import { registerCompareCommand } from "./compare.js";
import { registerFlashCommand } from "./flash.js";
import { registerFleetCommand } from "./fleet.js";
import { registerHubCommand } from "./hub.js";
import { registerModuleCommand } from "./module.js";
import { registerReqCommand } from "./req.js";
import { registerSelftestCommand } from "./selftest.js";
import { registerTailCommand } from "./tail.js";
import { registerUpCommand } from "./up.js";
import { registerWorldCommand } from "./world.js";

/**
 * Every subcommand by its name, in the order `cardsim --help` lists them; each file exports a
 * function that adds that one command (and its own subcommands) to the program.
 */
export const subcommands: Readonly<Record<string, (program: Command) => void>> = {
  up: registerUpCommand,
  module: registerModuleCommand,
  hub: registerHubCommand,
  req: registerReqCommand,
  boards: registerBoards,
  flash: registerFlashCommand,
  selftest: registerSelftestCommand,
  world: registerWorldCommand,
  tail: registerTailCommand,
  compare: registerCompareCommand,
  fleet: registerFleetCommand,
};

/**
 * The subcommands a command line needs, so that a start builds only what it runs: the one its
 * first argument names (`cardsim req ...`; commander then reads the program's own options and
 * dispatches to that one without looking at the others), none for `--version` alone (commander
 * answers it while reading the program's own options), and every one otherwise (the help lists
 * them all; a mistaken name is answered with the nearest ones). Each of these command lines is
 * answered as it is with every subcommand registered.
 */
export function subcommandsFor(args: readonly string[]): ((program: Command) => void)[] {
  const [first] = args;
  if (args.length === 1 && (first === "--version" || first === "-V")) return [];
  if (first !== undefined && Object.hasOwn(subcommands, first)) return [subcommands[first]!];
  return Object.values(subcommands);
}
