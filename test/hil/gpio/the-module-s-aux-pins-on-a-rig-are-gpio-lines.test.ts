import { expect, it } from "vitest";
import type { AuxEdge } from "../../../firmware/world/AuxPins.js";
import { GpioAuxPins } from "../../../hil/gpio/GpioAuxPins.js";
import { SimGpioChip } from "../../../hil/gpio/SimGpioChip.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { World } from "../../../firmware/world/World.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";

const LINES = ["GPIO5", "GPIO6", "GPIO13", "GPIO19"];

it("claims outputs at their level and inputs with their pull, and tells edges of inputs", async () => {
  const clock = new FakeClock();
  const chip = new SimGpioChip(clock);
  const aux = new GpioAuxPins(chip, LINES, { clock });
  const edges: AuxEdge[] = [];
  aux.onEdge((e) => edges.push(e));
  aux.setup(2, { output: true, high: true });
  aux.setup(4, { output: false, pull: "up" });
  await aux.settled();
  expect(chip.level("GPIO6")).toBe(true);
  expect(aux.read(2)).toBe(true);
  chip.drive("GPIO19", false);
  expect(aux.read(4)).toBe(false);
  chip.drive("GPIO19", true);
  expect(aux.read(4)).toBe(true);
  expect(edges.map((e) => [e.pin, e.high])).toEqual([
    [2, true],
    [4, true],
    [4, false],
    [4, true],
  ]);
  // An output turned into an input is released and claimed again: it reads the line from then on.
  aux.setup(2, { output: false, pull: "down" });
  await aux.settled();
  chip.drive("GPIO6", false);
  expect(aux.read(2)).toBe(false);
  await aux.close();
});

it("a module on a rig drives and reads its AUX pins on the board's GPIO lines", async () => {
  const clock = new FakeClock();
  const chip = new SimGpioChip(clock);
  const auxPins = new GpioAuxPins(chip, LINES, { clock });
  const sim = await SimulatedModule.boot({
    clock,
    seed: 5,
    timeKnown: true,
    auxPins,
    world: new World({ clock }),
  });
  const reply = await sim.module.request({
    req: "card.aux",
    mode: "gpio",
    usage: ["high", "low", "input", "input"],
  });
  expect(reply).not.toHaveProperty("err");
  await auxPins.settled();
  expect(chip.level("GPIO5")).toBe(true);
  expect(chip.level("GPIO6")).toBe(false);
  chip.drive("GPIO13", true);
  expect(await sim.module.request({ req: "card.aux", mode: "gpio" })).toMatchObject({
    state: [{ high: true }, { low: true }, { high: true }, {}],
  });
  // The simulated world's own lines are not the module's pins on a rig.
  expect(sim.world.aux.level(3)).toBe(false);
  await sim.close();
  await auxPins.close();
});
