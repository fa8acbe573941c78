import { Command } from "commander";

/** The `cardsim` command line (contract in DESIGN.md; each subcommand lives in its own file). */
export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name("cardsim")
    .description("A simulated IoT communications module and its cloud hub")
    .showHelpAfterError();
  const commands = await import("./commands.js");
  for (const register of commands.registrations) register(program);
  await program.parseAsync(argv as string[]);
}
