import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cliProcess.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("cardsim --version", () => {
  it.each([["--version"], ["-V"]])("%s prints package.json's version alone and exits 0", async (flag) => {
    const run = await runCli([flag]);
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});
