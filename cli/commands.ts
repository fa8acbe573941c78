import type { Command } from "commander";
import { registerBoards } from "./boards.js";

/** Each subcommand file exports a function that adds itself to the program. */
export const registrations: ((program: Command) => void)[] = [registerBoards];
