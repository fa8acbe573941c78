// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import { afterEach, expect, it } from "vitest";
import { Scenario } from "cardsim/harness";

// The official client (a development dependency of this repository) against a scenario's hub
// served by `listen()`: what a backend team's code sees of the module's traffic.

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

it("lists the scenario's device and the events of its notes through @blues-inc/notehub-js", async () => {
  sc = await Scenario.start({ seed: "official", hub: "in-process", timeKnown: true });
  const host = sc.attachNoteC();
  await host.request({ req: "note.add", file: "sensors.qo", body: { temp: 19.5 }, sync: true });
  await sc.run(sc.module.sync.idle(), { timeout: 600_000 });

  const api = await sc.hub!.listen();
  const client = new NotehubJs.ApiClient(api.url);
  client.authentications.api_key.apiKey = api.token;
  const devices = await new NotehubJs.DeviceApi(client).getProjectDevices(api.projectUid);
  expect(devices.devices.map((d: { uid: string }) => d.uid)).toEqual([sc.module.deviceUid]);
  const page = await new NotehubJs.EventApi(client).getProjectEvents(api.projectUid, { files: "sensors.qo" });
  expect(page.events.map((e: { body: unknown }) => e.body)).toEqual([{ temp: 19.5 }]);
  await sc.finish();
});
