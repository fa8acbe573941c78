/**
 * `sc.world.addAccessPoint` / `removeAccessPoint` / `mojo` and `Scenario.start({ mojo })`: world
 * changes a host sees through card.wifi (card.wifi.rsp.notecard.api.json `ssid`, `security`) and
 * card.power (card.power.rsp.notecard.api.json), recorded in the capture and replayed.
 */
import { afterEach, expect, it } from "vitest";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";
import { Scenario } from "../../harness/Scenario.js";

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

it("a host joins the access point the scenario puts in range, reads the Mojo, and a replay reads the same", async () => {
  sc = await Scenario.start({ variant: "cell-wifi", mojo: true, capture: true, seed: "wifi" });
  const host = sc.attachNoteC();
  expect(await host.request({ req: "card.power" })).toHaveProperty("milliamp_hours");

  await sc.world.addAccessPoint({
    ssid: "Workshop",
    security: "wpa2-psk",
    password: "s0lder-fumes",
    rssi: -58,
  });
  expect(await host.request({ req: "card.wifi", ssid: "Workshop", password: "s0lder-fumes" })).toMatchObject({
    ssid: "Workshop",
    security: "wpa2-psk",
  });
  expect(sc.module.radio.state()).toMatchObject({ rat: "wifi", rssi: -58 });
  await sc.world.removeAccessPoint("Workshop");
  // Cell+WiFi falls back to cellular (`wifi-cell`, its default transport).
  expect(sc.module.radio.state().rat).toBe("lte");
  await sc.world.mojo(false);
  expect((await host.request({ req: "card.power" }))["err"]).toMatch(/no Mojo .*\{not-supported\}$/);

  const physical = sc.capture!.entries.filter((e) => e.kind === "world").map((e) => e.info?.["op"]);
  expect(physical).toEqual(["addAccessPoint", "removeAccessPoint", "setMojo"]);
  sc.ignore(() => true);
  const capture = parseCapture(sc.capture!.toJsonl());
  await sc.finish();
  sc = undefined;
  const replay = await replayHostTraffic(capture);
  expect(replay.same, describeDifferences(replay.differences)).toBe(true);
});
