import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cliProcess.js";
import { startControlledModule, type ControlledModule } from "../support/controlledModule.js";

async function mistake(args: string[], line: RegExp): Promise<void> {
  const run = await runCli(args);
  expect(run.stderr.trimEnd()).toMatch(line);
  expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe("");
}

describe("cardsim module's radio and supply flags", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-radio-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [
      ["--signal", "great"],
      /^cardsim module: option '--signal <PRESET>' argument 'great' is invalid\. use one of good, fair, poor, none/,
    ],
    [["--latency", "soon"], /argument 'soon' is invalid\. give milliseconds >= 0, like --latency 800$/],
    [["--supply", "solar"], /argument 'solar' is invalid\. use usb, battery or line$/],
    [["--voltage", "lots"], /argument 'lots' is invalid\. give volts between 0 and 30, like --voltage 3\.7$/],
    [
      ["--discharge", "linear:4.2/30d"],
      /^cardsim module: --discharge "linear:4\.2\/30d" is not a linear model: write linear:FROM-TO\/DURATION/,
    ],
    [
      ["--discharge", "/nonexistent/curve.csv"],
      /^cardsim module: --discharge \/nonexistent\/curve\.csv: no such file \(give a CSV of time,volts or linear:FROM-TO\/TIME\)$/,
    ],
  ])("%j is one line saying what to do, exit status 2", async (flags, line) => {
    await mistake(["module", "--no-flash", "--tcp", "127.0.0.1:0", ...flags], line);
  });

  it("a CSV with a bad row names the file and the line", async () => {
    const file = join(dir, "bad.csv");
    writeFileSync(file, "time,volts\n0,4.2\n1h,lots\n");
    await mistake(
      ["module", "--no-flash", "--tcp", "127.0.0.1:0", "--discharge", file],
      new RegExp(
        `^cardsim module: --discharge ${file.replace(/[.]/g, "\\.")}: line 3: "lots" is not a voltage`,
      ),
    );
  });

  describe("a running module", () => {
    let running: ControlledModule;
    let control: string;
    const request = (req: Record<string, unknown>) => running.request(req);
    const world = (...what: string[]) => running.world(...what);

    beforeAll(async () => {
      const csv = join(dir, "curve.csv");
      writeFileSync(csv, "time,volts\n0,4.1\n30d,3.4\n");
      running = await startControlledModule([
        "--signal",
        "poor",
        "--latency",
        "250",
        "--supply",
        "battery",
        "--discharge",
        csv,
      ]);
      control = running.control;
    }, 30_000);
    afterAll(async () => {
      await running?.stop();
    });

    it("starts with the signal, latency and discharge asked for", async () => {
      expect(await request({ req: "card.wireless" })).toMatchObject({
        count: 1,
        net: { bars: 1, rssi: -97 },
      });
      expect(await world("radio")).toMatchObject({ latencyMs: 250, bars: 1 });
      expect(await world("supply")).toMatchObject({
        volts: 4.1,
        usb: false,
        discharge: { fromVolts: 4.1, toVolts: 3.4, durationMs: 30 * 86_400_000, finished: false },
      });
    });

    it("cardsim world changes the radio and the supply while it runs", async () => {
      expect(await world("signal", "good")).toMatchObject({ bars: 3 });
      expect(await world("outage", "registration")).toMatchObject({ registered: false });
      expect((await request({ req: "card.wireless" }))["net"]).not.toHaveProperty("rssi");
      expect(await world("restore")).toMatchObject({ registered: true });
      expect(await world("failhub", "2")).toMatchObject({ failConnects: 2 });
      // A voltage set by hand takes over from the curve playing.
      expect(await world("supply", "usb", "5")).toEqual({ volts: 5, usb: true, discharge: null });
      expect(await request({ req: "card.voltage", now: true })).toMatchObject({ usb: true });
      const bad = await runCli(["world", "--control", control, "signal", "great"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trimEnd().split("\n")).toHaveLength(1);
    });

    it("cardsim world starts, replaces and stops a discharge while it runs", async () => {
      await world("supply", "battery");
      expect(await world("discharge", "linear:4.2-3.3/30d")).toMatchObject({
        volts: 4.2,
        usb: false,
        discharge: { fromVolts: 4.2, toVolts: 3.3, durationMs: 30 * 86_400_000, finished: false },
      });
      expect(await request({ req: "card.voltage", now: true })).toMatchObject({ value: 4.2 });
      const csv = join(dir, "sag.csv");
      writeFileSync(csv, "time,volts\n0,3.8\n2h,3.5\n");
      expect(await world("discharge", csv)).toMatchObject({
        volts: 3.8,
        discharge: { fromVolts: 3.8, toVolts: 3.5, durationMs: 7_200_000 },
      });
      expect(await world("discharge", "stop")).toEqual({ volts: 3.8, usb: false, discharge: null });
      for (const [what, line] of [
        [
          ["discharge", "linear:4.2/30d"],
          /^cardsim world: discharge: "linear:4\.2\/30d" is not a linear model/,
        ],
        [["discharge", join(dir, "none.csv")], /none\.csv: no such file \(give a CSV of time,volts/],
        [["discharge"], /expected one of: /],
      ] as const) {
        const run = await runCli(["world", "--control", control, ...what]);
        expect(run.stderr.trimEnd()).toMatch(line);
        expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(run.code).toBe(2);
      }
    });
  });
});
