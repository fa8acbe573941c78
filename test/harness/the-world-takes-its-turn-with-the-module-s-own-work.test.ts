import { afterEach, expect, it } from "vitest";
import { Scenario } from "../../harness/Scenario.js";

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

// Reproduces the review's finding: with `card.voltage usb:true alert:true` on the real flash
// store, plugging in USB makes the module queue a `_health.qo` note by itself while the world
// delivers an inbound note. Both used to open a Notebox transaction at once ("transactions do not
// nest"); now both take their turn in the module's one writer queue.
it("a USB alert the module queues by itself and an inbound note from the world both land", async () => {
  sc = await Scenario.start({ flash: true, timeKnown: true });
  expect(await sc.module.request({ req: "card.voltage", usb: true, alert: true })).not.toHaveProperty("err");
  await sc.world.supply({ usb: true });
  await sc.world.inboundNote("data.qi", { body: { from: "hub" } });
  await sc.module.exclusive(() => undefined);
  const health = [...(sc.module.notebox.file("_health.qo")?.notes.values() ?? [])].map((n) => n.body);
  expect(health).toEqual([expect.objectContaining({ text: "USB power connected" })]);
  expect(await sc.module.request({ req: "note.get", file: "data.qi" })).toMatchObject({
    body: { from: "hub" },
  });
});
