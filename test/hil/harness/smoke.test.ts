import { expect, it } from "vitest";
import { Scenario } from "../../../hil/harness/Scenario.js";

it("smoke", async () => {
  const sc = await Scenario.start({ capture: true, serial: { baud: 9600 } });
  const host = sc.attachNoteC();
  const pending = host.request({ req: "echo", text: "x".repeat(600) });
  const seen = await sc.expectHostRequest((r) => r["req"] === "echo");
  expect(seen.crcSequence).toBe(0);
  const reply = await pending;
  expect(reply).toEqual({ text: "x".repeat(600) });
  console.log(sc.elapsed(), sc.wireLines.map((l) => l.bursts));
  console.log(host.events.map((e) => `${e.t - Date.UTC(2026,0,1)} ${e.event}`));
  sc.expectPacedSegments();
  await sc.finish();
});
