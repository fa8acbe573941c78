import { expect, it } from "vitest";
import { ENV_KEYS } from "../../../firmware/env/Environment.js";
import { bootTestModule } from "../../support/moduleFixture.js";

// Flash written before each variable had its own record keeps a layer in one record.
it("reads host values a module stored in one record, and splits them at the next change", async () => {
  const t = await bootTestModule({ timeKnown: true });
  const box = t.module.notebox;
  await box.transact(() => {
    box.setConfig(ENV_KEYS.local, { debug: { name: "Debug", text: "on", time: 5 } });
    box.setConfig(ENV_KEYS.defaults, { rate: { name: "rate", text: "60", time: 5, sync: true } });
  });
  expect(await t.req({ req: "env.get", name: "debug" })).toMatchObject({ text: "on" });
  expect(await t.req({ req: "env.get" })).toMatchObject({ body: { Debug: "on", rate: "60" } });
  await t.req({ req: "env.set", name: "mode", text: "fast" });
  expect(box.config(ENV_KEYS.local)).toBeUndefined();
  expect(box.configKeys(`${ENV_KEYS.local}/`).sort()).toEqual(["env.set/debug", "env.set/mode"]);
  const again = await t.reboot();
  expect(await again.req({ req: "env.get" })).toMatchObject({
    body: { Debug: "on", mode: "fast", rate: "60" },
  });
});

it("keeps a record per variable whatever characters its name holds", async () => {
  const t = await bootTestModule();
  for (const name of ["a\u001fb", "100%", "x\ud800", "__proto__"]) {
    await t.req({ req: "env.set", name, text: name.length.toString() });
  }
  const again = await t.reboot();
  expect((await again.req({ req: "env.get", name: "a\u001fb" })).text).toBe("3");
  expect((await again.req({ req: "env.get", name: "100%" })).text).toBe("4");
  expect((await again.req({ req: "env.get", name: "x\ud800" })).text).toBe("2");
  expect((await again.req({ req: "env.get", name: "__proto__" })).text).toBe("9");
});
