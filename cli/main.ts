import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { isUserMistake, oneLine } from "./CliError.js";
import { commanderOutput } from "./commanderOutput.js";
import { subcommandsFor } from "./commands.js";

/** cardsim's version, written into the start bundle when it is built (tools/bundleCli.js). */
declare const CARDSIM_BUNDLED_VERSION: string | undefined;

/** `cardsim hub token create` for the command an action belongs to. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * The version in cardsim's package.json (above `cli/` in a clone, above `dist/cli/` in the
 * package), or the one the start bundle was built with, which need not read it.
 */
function packageVersion(): string {
  if (typeof CARDSIM_BUNDLED_VERSION === "string") return CARDSIM_BUNDLED_VERSION;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (name === "cardsim" && version) return version;
    }
    if (dirname(dir) === dir) return "unknown";
  }
}

/**
 * The `cardsim` command line (contract in DESIGN.md; each subcommand lives in its own file and
 * loads what it runs only when it runs). A mistake is one line on stderr and exit status 2; a
 * fault of cardsim is one line and status 1 (its stack with CARDSIM_DEBUG=1).
 */
export async function main(argv: readonly string[]): Promise<void> {
  let running = "cardsim";
  const program = new Command()
    .name("cardsim")
    .description("A simulated IoT communications module and its cloud hub")
    .version(packageVersion(), "-V, --version", "print cardsim's version")
    .exitOverride()
    .configureOutput({
      ...commanderOutput(),
      outputError: (text, write) => write(`${running}: ${text.replace(/^error: /, "")}`),
    })
    .hook("preSubcommand", (_program, sub) => {
      running = `cardsim ${sub.name()}`;
    })
    .hook("preAction", (_program, action) => {
      running = commandPath(action);
    });
  for (const register of subcommandsFor(argv.slice(2))) register(program);
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError && !(error instanceof InvalidArgumentError)) {
      // Help and version are not errors; commander has already printed its message otherwise.
      // (An InvalidArgumentError reaching here was thrown by an action: it is printed below.)
      const done = ["commander.helpDisplayed", "commander.help", "commander.version"].includes(error.code);
      process.exit(done ? error.exitCode : 2);
    }
    process.stderr.write(`${running}: ${oneLine(error)}\n`);
    if (process.env["CARDSIM_DEBUG"]) process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
    process.exit(isUserMistake(error) ? 2 : 1);
  }
}
