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

/** Every subcommand; each file exports a function that adds itself to the program. */
export const registrations: ((program: Command) => void)[] = [
  registerUpCommand,
  registerModuleCommand,
  registerHubCommand,
  registerReqCommand,
  registerBoards,
  registerFlashCommand,
  registerSelftestCommand,
  registerWorldCommand,
  registerTailCommand,
  registerCompareCommand,
  registerFleetCommand,
];
