import { describe, expect, it } from "vitest";
import { runCli } from "../support/cliProcess.js";

const COMMANDS = ["up", "hub", "module", "world", "req", "flash", "boards", "selftest", "tail", "fleet"];

describe("--help of every command", () => {
  it.each(COMMANDS)(
    "cardsim %s --help shows no default a user could not type (false, true, [object ...])",
    async (command) => {
      const run = await runCli([command, "--help"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: cardsim ${command}`);
      expect(run.stdout).not.toMatch(/\(default: (false|true)\)|\[object /);
    },
  );

  it("cardsim hub --help says the rate limit is off by default", async () => {
    const run = await runCli(["hub", "--help"]);
    expect(run.stdout.replace(/\s+/g, " ")).toContain('"60/min,5000/day" (default: off)');
  });
});
