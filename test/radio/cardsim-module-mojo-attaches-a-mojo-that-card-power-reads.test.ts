/**
 * `cardsim module --mojo` (and `cardsim up --mojo`): the flag goes through the one rig assembly
 * (runtime/assembleModule.ts) into the module's world, where card.power reads it
 * (card.power.rsp.notecard.api.json `temperature`, `voltage`, `milliamp_hours`).
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addModuleOptions, moduleRigOptions, type ModuleCommandOptions } from "../../cli/module.js";
import { assembleModule } from "../../runtime/assembleModule.js";
import { FakeClock } from "../../runtime/FakeClock.js";

async function rigFromFlags(flags: string[]) {
  const command = addModuleOptions(new Command("module")).exitOverride();
  command.parse(["--no-flash", ...flags], { from: "user" });
  const options = await moduleRigOptions(command.opts<ModuleCommandOptions>());
  return assembleModule({ ...options, clock: new FakeClock() });
}

describe("cardsim module --mojo", () => {
  it("puts a Mojo in the module's world: card.power answers its reading", async () => {
    const rig = await rigFromFlags(["--mojo", "--location", "52.52,13.405"]);
    try {
      expect(rig.world.mojo()).toBe(true);
      expect(rig.world.position()).toMatchObject({ lat: 52.52, lon: 13.405 });
      const reply = await rig.simulated.module.request({ req: "card.power" });
      expect(Object.keys(reply!).sort()).toEqual(["milliamp_hours", "temperature", "voltage"]);
    } finally {
      await rig.close();
    }
  });

  it("without the flag the module has none, and card.power says so", async () => {
    const rig = await rigFromFlags([]);
    try {
      expect(rig.world.mojo()).toBe(false);
      expect((await rig.simulated.module.request({ req: "card.power" }))!["err"]).toMatch(
        /\{not-supported\}$/,
      );
    } finally {
      await rig.close();
    }
  });
});
