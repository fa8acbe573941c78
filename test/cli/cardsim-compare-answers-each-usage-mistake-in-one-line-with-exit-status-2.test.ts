import { describe, expect, it } from "vitest";
import { compareUsageProblem } from "../../cli/compare.js";
import { runCli } from "../support/cliProcess.js";

describe("cardsim compare's usage mistakes", () => {
  it.each([
    [{}, /^say where the real replies come from: --port DEV --script FILE .* or --transcript FILE/],
    [{ port: "/dev/x", transcript: "t" }, /^--port and --transcript cannot be used together/],
    [{ port: "/dev/x" }, /^--port needs --script FILE: .*tools\/compare\/starter\.jsonl/],
    [{ transcript: "t", script: "s" }, /^--transcript replays the requests it holds: drop --script$/],
    [{ transcript: "t", record: "r" }, /^--record keeps a real module's transcript: it needs --port DEV$/],
  ])("%j: %s", (options, message) => {
    expect(compareUsageProblem({ timeout: 1, ...options })).toMatch(message);
  });

  it("a comparison the flags make is no mistake", () => {
    expect(compareUsageProblem({ timeout: 1, port: "/dev/x", script: "s", record: "r" })).toBeUndefined();
    expect(compareUsageProblem({ timeout: 1, transcript: "t" })).toBeUndefined();
  });

  it("on the command line: one line on stderr, exit status 2, for flags, files and devices alike", async () => {
    for (const args of [
      ["compare"],
      ["compare", "--transcript", "/nonexistent/t.jsonl"],
      ["compare", "--port", "/nonexistent/tty", "--script", "tools/compare/starter.jsonl"],
      ["compare", "--transcript", "tools/compare/starter.jsonl"],
    ]) {
      const run = await runCli(args, { timeoutMs: 60_000 });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^cardsim compare: [^\n]+\n$/);
    }
  }, 240_000);
});
