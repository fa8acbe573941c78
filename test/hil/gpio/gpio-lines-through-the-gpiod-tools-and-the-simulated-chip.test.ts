import { describe, expect, it, onTestFinished } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { GpiodToolsChip } from "../../../hil/gpio/GpiodToolsChip.js";
import { HostResetLine } from "../../../hil/gpio/HostResetLine.js";
import { SimGpioChip } from "../../../hil/gpio/SimGpioChip.js";
import { Changes } from "../../support/waiting.js";
import { fakeGpiodTools } from "./fakeGpiodTools.js";

/** The gpioset calls that hold a line (not the version probe). */
const setters = (calls: string[]) => calls.filter((c) => c.startsWith("gpioset") && !c.includes("--version"));

describe("simulated GPIO chip", () => {
  it("records output levels with their time and refuses a second claim", async () => {
    const clock = new FakeClock();
    const chip = new SimGpioChip(clock);
    const out = await chip.output(17, { initial: true });
    await clock.advance(5);
    out.write(false);
    out.write(false);
    expect(chip.history(17).map((e) => [e.at - clock.now(), e.high])).toEqual([
      [-5, true],
      [0, false],
    ]);
    await expect(chip.output(17)).rejects.toThrow(/busy/);
    await out.release();
    await expect(chip.output(17)).resolves.toBeDefined();
  });

  it("delivers driven input edges", async () => {
    const chip = new SimGpioChip(new FakeClock());
    const input = await chip.input("AUX1", { bias: "pull-up" });
    const seen: boolean[] = [];
    const edges = new Changes();
    input.onChange((h) => (seen.push(h), edges.fire()));
    expect(input.level).toBe(true);
    chip.drive("AUX1", false);
    chip.drive("AUX1", false);
    chip.drive("AUX1", true);
    expect(seen).toEqual([false, true]);
  });

  it("pulses the host's RESET line LOW for the given time on the harness clock", async () => {
    const clock = new FakeClock();
    const chip = new SimGpioChip(clock);
    const reset = new HostResetLine(await chip.output("RESET", { initial: true }), clock);
    expect(reset.asserted).toBe(false);
    const done = reset.pulse(20);
    expect(reset.asserted).toBe(true);
    await clock.advance(20);
    await done;
    expect(reset.asserted).toBe(false);
    expect(chip.history("RESET").map((e) => e.high)).toEqual([true, false, true]);
  });
});

/** The fake tools, their folder deleted once the test has finished. */
async function tools(version: 1 | 2) {
  const fake = await fakeGpiodTools(version);
  onTestFinished(() => fake.remove());
  return fake;
}

describe.each([1, 2] as const)("gpiod tools v%i", (version) => {
  it("detects the version, holds outputs with gpioset and replaces the holder on each write", async () => {
    const fake = await tools(version);
    const chip = new GpiodToolsChip({ toolsDir: fake.dir });
    expect(await chip.version()).toBe(version);
    const holders = async () => setters(await fake.calls());
    // Each holder is replaced only once it has started (a real gpioset must have claimed the line).
    const attn = await chip.output("GPIO17", { initial: true, consumer: "attn" });
    await fake.untilCalls((calls) => setters(calls).length === 1, "the first holder");
    attn.write(false);
    await attn.settled();
    await fake.untilCalls((calls) => setters(calls).length === 2, "the second holder");
    attn.write(true);
    await attn.settled();
    await fake.untilCalls((calls) => setters(calls).length === 3, "the third holder");
    expect(attn.level).toBe(true);
    await chip.close();
    const sets = await holders();
    if (version === 1) {
      expect(sets).toEqual([
        "gpioset --mode=signal gpiochip0 17=1",
        "gpioset --mode=signal gpiochip0 17=0",
        "gpioset --mode=signal gpiochip0 17=1",
      ]);
      expect(await fake.calls()).toContain("gpiofind GPIO17");
    } else {
      expect(sets).toEqual([
        "gpioset -C attn GPIO17=1",
        "gpioset -C attn GPIO17=0",
        "gpioset -C attn GPIO17=1",
      ]);
    }
  });

  it("drives an open-drain output with --drive=open-drain (the host's RESET line)", async () => {
    const fake = await tools(version);
    const chip = new GpiodToolsChip({ toolsDir: fake.dir });
    const reset = await chip.output("GPIO27", { initial: true, drive: "open-drain", consumer: "reset" });
    const sets = async () => setters(await fake.calls());
    await fake.untilCalls((calls) => setters(calls).length === 1, "the holder");
    await reset.release();
    expect(await sets()).toEqual([
      version === 1
        ? "gpioset --mode=signal --drive=open-drain gpiochip0 27=1"
        : "gpioset --drive=open-drain -C reset GPIO27=1",
    ]);
  });

  it("says in one line what to install when the tools are missing", async () => {
    const chip = new GpiodToolsChip({ toolsDir: "/nonexistent-gpiod-tools" });
    await expect(chip.output("GPIO17")).rejects.toThrow(
      /the gpiod tools are missing \(no gpioset in \/nonexistent-gpiod-tools\): install them \(sudo apt-get install gpiod\)/,
    );
  });

  it("reads an input's level with gpioget and its edges from gpiomon", async () => {
    const fake = await tools(version);
    const chip = new GpiodToolsChip({ toolsDir: fake.dir, chip: "gpiochip0" });
    await fake.setLevel("5", true);
    const input = await chip.input(5, { bias: "pull-up" });
    expect(input.level).toBe(true);
    const seen: boolean[] = [];
    const edges = new Changes();
    input.onChange((h) => (seen.push(h), edges.fire()));
    await fake.edge("5", version === 1 ? "0" : "2");
    await fake.edge("5", "1");
    await edges.until(() => seen.length === 2, "two edges");
    expect(seen).toEqual([false, true]);
    await chip.close();
    const calls = await fake.calls();
    expect(calls.some((c) => c.startsWith("gpiomon --format=%e -B pull-up"))).toBe(true);
  });

  it("reports a line the tools refuse", async () => {
    const fake = await tools(version);
    const chip = new GpiodToolsChip({ toolsDir: fake.dir, chip: "gpiochip0" });
    await expect(chip.output("BUSY")).rejects.toThrow(/busy/);
  });
});

describe("gpiod tools missing", () => {
  it("says what to install", async () => {
    const chip = new GpiodToolsChip({ toolsDir: "/nonexistent", chip: "gpiochip0", version: 1 });
    await expect(chip.output(3)).rejects.toThrow(/gpiod/);
  });
});
