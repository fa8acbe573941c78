import type { Command } from "commander";

/** Each subcommand file exports a function that adds itself to the program. */
export const registrations: ((program: Command) => void)[] = [];
registrations.push((await import("./hub.js")).registerHubCommand);
