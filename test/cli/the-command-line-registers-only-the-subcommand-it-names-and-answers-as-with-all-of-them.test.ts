import { Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { subcommands, subcommandsFor } from "../../cli/commands.js";

/** What the program answers to `args` with `registrations`: its output and how it ended. */
async function answer(args: string[], registrations: ((program: Command) => void)[]) {
  let out = "";
  let err = "";
  const program = new Command()
    .name("cardsim")
    .version("1.2.3", "-V, --version", "print cardsim's version")
    .exitOverride()
    .configureOutput({ writeOut: (t) => (out += t), writeErr: (t) => (err += t) });
  for (const register of registrations) register(program);
  let ended = "parsed";
  try {
    await program.parseAsync(["node", "cardsim", ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    ended = `${error.code} ${error.exitCode}`;
  }
  return { out, err, ended };
}

/**
 * A start registers only what its command line needs (cli/commands.ts): the subcommand its first
 * argument names, none for `--version` alone, all of them otherwise. Whatever it registers,
 * commander answers as it does with every subcommand registered.
 */
describe("the command line registers only the subcommand it names", () => {
  it("registers the named subcommand alone, none for --version, and all for the rest", () => {
    expect(subcommandsFor(["req", '{"req":"card.version"}'])).toEqual([subcommands["req"]]);
    expect(subcommandsFor(["hub", "token", "create"])).toEqual([subcommands["hub"]]);
    expect(subcommandsFor(["--version"])).toEqual([]);
    expect(subcommandsFor(["-V"])).toEqual([]);
    for (const args of [[], ["--help"], ["bogus"], ["--bogus", "req"], ["help", "req"], ["-V", "req"]])
      expect(subcommandsFor(args)).toEqual(Object.values(subcommands));
  });

  it.each(
    [
      ["--help"],
      ["-h"],
      ["--version"],
      ["-V"],
      [],
      ["bogus"],
      ["help", "req"],
      ["--help", "req"],
      ["req", "--help"],
      ["req", "--version"],
      ["req"],
      ["req", "--timeout", "soon", "{}"],
      ["--bogus", "req", "--help"],
      ["--", "req"],
      ["-V", "req"],
      ["hub", "--help"],
      ["hub", "token", "--help"],
      ["hub", "--bogus"],
      ["fleet", "--modules", "many"],
      ["world", "--help"],
      ["up", "--bogus"],
    ].map((args) => [args.join(" "), args] as const),
  )("cardsim %s is answered as with every subcommand registered", async (_line, args) => {
    const all = await answer(args, Object.values(subcommands));
    const only = await answer(args, subcommandsFor(args));
    expect(only).toEqual(all);
    expect(all.out + all.err).not.toBe("");
  });
});
