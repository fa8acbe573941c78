/**
 * The world's access points and Mojo, from outside: the control API (`POST /world`), the
 * `cardsim world ap ...` words, and the `card.wifi` `text` list (card.wifi.req.notecard.api.json
 * `text`: `["FIRST-SSID","FIRST-PASSWORD"],["SECOND-SSID","SECOND-PASSWORD"]`).
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import "../support/fastCheckSeed.js";
import { accessPointChange } from "../../cli/world.js";
import { CliError } from "../../cli/CliError.js";
import { parseWifiText } from "../../firmware/requests/wifi.js";
import { SimError } from "../../firmware/SimError.js";
import { World } from "../../firmware/world/World.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { WorldControlServer } from "../../runtime/WorldControlServer.js";

describe("the control API puts access points and a Mojo in the world", () => {
  let world: World;
  let server: WorldControlServer;
  const post = async (body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${server.address.port}/world`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeEach(async () => {
    world = new World({ clock: new FakeClock() });
    server = await WorldControlServer.listen(world, "127.0.0.1", 0);
  });
  afterEach(async () => {
    await server.close();
    world.dispose();
  });

  it("adds, replaces and removes access points, strongest first, and says what is wrong with a bad one", async () => {
    expect((await post({ op: "setMojo", args: [true] })).body).toMatchObject({
      accessPoints: null,
      mojo: true,
    });
    await post({ op: "addAccessPoint", args: [{ ssid: "Office", password: "correct horse", rssi: -70 }] });
    const added = await post({ op: "addAccessPoint", args: [{ ssid: "Lab", security: "open", rssi: -50 }] });
    expect(added.body["accessPoints"]).toEqual([
      { ssid: "Lab", security: "open", rssi: -50 },
      { ssid: "Office", security: "wpa2-psk", password: "correct horse", rssi: -70 },
    ]);
    await post({
      op: "addAccessPoint",
      args: [{ ssid: "Lab", security: "wpa3", password: "12345678", rssi: -80 }],
    });
    expect(world.accessPoints.list()!.map((p) => [p.ssid, p.security, p.mfp])).toEqual([
      ["Office", "wpa2-psk", undefined],
      ["Lab", "wpa3", true],
    ]);

    expect(await post({ op: "removeAccessPoint", args: ["Cafe"] })).toEqual({
      status: 400,
      body: { err: 'no access point "Cafe" here: Office, Lab' },
    });
    expect((await post({ op: "addAccessPoint", args: [{ ssid: "Short", password: "1234" }] })).body).toEqual({
      err: "access point Short: wpa2-psk needs a password of 8 to 63 characters",
    });
    expect(
      (await post({ op: "setAccessPoints", args: [[{ ssid: "x", security: "wpa9" }]] })).body["err"],
    ).toBe("access point x: security is one of open, wep, wpa-psk, wpa2-psk, wpa3, got wpa9");
    expect((await post({ op: "setMojo", args: ["yes"] })).body["err"]).toBe(
      "setMojo takes true (attached) or false",
    );
    expect((await post({ op: "removeAccessPoint", args: ["Lab"] })).body["accessPoints"]).toHaveLength(1);
    expect((await post({ op: "setAccessPoints", args: [null] })).body["accessPoints"]).toBeNull();
  });
});

describe("cardsim world ap", () => {
  const usage = () => new CliError("usage");

  it("turns words into world changes: a password makes a WPA2 access point, none an open one", () => {
    expect(accessPointChange(["add", "Office", "correct horse", "-61"], usage)).toEqual({
      op: "addAccessPoint",
      args: [{ ssid: "Office", security: "wpa2-psk", password: "correct horse", rssi: -61 }],
    });
    expect(accessPointChange(["add", "Lab"], usage)).toEqual({
      op: "addAccessPoint",
      args: [{ ssid: "Lab", security: "open" }],
    });
    expect(accessPointChange(["remove", "Lab"], usage)).toEqual({ op: "removeAccessPoint", args: ["Lab"] });
    expect(accessPointChange(["none"], usage)).toEqual({ op: "setAccessPoints", args: [[]] });
    expect(accessPointChange(["default"], usage)).toEqual({ op: "setAccessPoints", args: [null] });
  });

  it.each([[[]], [["add"]], [["remove"]], [["add", "x", "pw123456", "loud"]], [["fly"]]])(
    "answers %j with the usage line",
    (words) => {
      expect(() => accessPointChange(words, usage)).toThrow("usage");
    },
  );
});

describe("card.wifi text", () => {
  const ssid = fc.string({ minLength: 1, maxLength: 32 });
  const password = fc.string({ maxLength: 63 }).filter((p) => p !== "" && p !== "-");

  it("reads back every list of access points written in the schema's form", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(ssid, fc.option(password, { nil: undefined })), { maxLength: 8 }),
        (entries) => {
          const text = entries.map(([s, p]) => JSON.stringify(p === undefined ? [s] : [s, p])).join(",");
          expect(parseWifiText(text)).toEqual(
            entries.map(([s, p]) => (p === undefined ? { ssid: s } : { ssid: s, password: p })),
          );
        },
      ),
    );
  });

  it("answers any other text with the module's error, never another exception", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        try {
          expect(Array.isArray(parseWifiText(text))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(SimError);
          expect((error as SimError).message).toMatch(/^card\.wifi: text must be access points as/);
        }
      }),
    );
  });

  it("takes the schema's sample, and an empty or open password as an open access point", () => {
    expect(parseWifiText('["FIRST-SSID","FIRST-PASSWORD"],["SECOND-SSID","SECOND-PASSWORD"]')).toEqual([
      { ssid: "FIRST-SSID", password: "FIRST-PASSWORD" },
      { ssid: "SECOND-SSID", password: "SECOND-PASSWORD" },
    ]);
    expect(parseWifiText('["Lab",""],["Cafe","-"]')).toEqual([{ ssid: "Lab" }, { ssid: "Cafe" }]);
    expect(parseWifiText("")).toEqual([]);
  });
});
