import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase64 } from "../../../core/base64.js";
import { publicKeyToPem } from "../../../core/Crypto.js";
import { SeededCrypto } from "../../../core/SeededCrypto.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { signedText } from "../../../protocol/messages.js";
import { WebCryptoCrypto } from "../../../runtime/WebCryptoCrypto.js";
import { sessionContext } from "./support/ScriptedModule.js";
import { syncCases, SyncFixture } from "./support/syncFixture.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

describe.each(syncCases())("identity and provisioning (%s, %s)", (via, backend) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { backend });
  });
  afterAll(async () => hub.close());

  it("provisions an unknown device into the project owning its product, with the product's fleets", async () => {
    const fleet = await hub.api("POST", `/v1/projects/${hub.projectUid}/fleets`, { label: "auto" });
    expect(fleet.status).toBe(201);
    const product = "product:com.example.sync:auto";
    await hub.store.projects.createProduct({
      uid: product,
      projectUid: hub.projectUid,
      label: "auto",
      disableDevicesByDefault: false,
      autoProvisionFleets: [fleet.json.uid],
      created: hub.clock.now(),
    });
    const module = await hub.module({ product });
    const hello = await module.hello();
    expect(hello).toMatchObject({ v: 1, time: hub.clock.now() });
    // Whether the hub holds the device is nobody's business before the device proved itself.
    expect(hello).not.toHaveProperty("known");
    expect(typeof hello.challenge).toBe("string");
    const open = await module.open({ context: { sn: "sync-1" } });
    expect(open.err).toBeUndefined();
    const device = await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}`);
    expect(device.status).toBe(200);
    expect(device.json).toMatchObject({
      uid: module.device,
      product_uid: product,
      fleet_uids: [fleet.json.uid],
      serial_number: "sync-1",
      disabled: false,
    });
    // The key is stored at the first session and served by Get Device Public Key.
    const key = await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}/public-key`);
    expect(key.json).toEqual({ uid: module.device, key: module.publicKeyPem });
    expect(await module.hello()).not.toHaveProperty("known");
  });

  it("refuses a product no project owns with {product-noexist}", async () => {
    const module = await hub.module({ product: "product:com.example.none:thing" });
    expect(code(await module.hello())).toBe("product-noexist");
    expect(await hub.store.devices.getDevice(module.device)).toBeUndefined();
  });

  it("creates a device of a product that disables new devices disabled, and refuses it until enabled", async () => {
    const product = "product:com.example.sync:disabled";
    await hub.store.projects.createProduct({
      uid: product,
      projectUid: hub.projectUid,
      label: "disabled",
      disableDevicesByDefault: true,
      autoProvisionFleets: null,
      created: hub.clock.now(),
    });
    const module = await hub.module({ product });
    expect(code(await module.open())).toBe("device-disabled");
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("GET", path)).json.disabled).toBe(true);
    expect((await hub.api("POST", `${path}/enable`)).status).toBe(200);
    expect((await module.open()).err).toBeUndefined();
    // Disabled while a session is open: its next message is refused and the session ends.
    expect((await hub.api("POST", `${path}/disable`)).status).toBe(200);
    expect(code(await module.pull("data.qi"))).toBe("device-disabled");
    expect(code(await module.pull("data.qi"))).toBe("session-expired");
    expect(code(await module.open())).toBe("device-disabled");
  });

  it("checks every later session against the stored key: another key or a bad signature is {auth}", async () => {
    const module = await hub.module();
    expect((await module.open()).err).toBeUndefined();
    const other = await new SeededCrypto(new SeededRandom("other")).generateKeyPair();
    expect(code(await module.open({ signWith: other }))).toBe("auth");
    // Sending another key along changes nothing: the stored one decides.
    expect(code(await module.open({ signWith: other, sendKey: module.publicKeyPem.replace("A", "B") }))).toBe(
      "auth",
    );
    expect(code(await module.open({ tamper: true }))).toBe("auth");
    expect((await module.open()).err).toBeUndefined();
  });

  it("refuses a first session without a key, with a malformed key, or signed by another key than sent", async () => {
    const module = await hub.module();
    expect(code(await module.open({ sendKey: false }))).toBe("auth");
    expect(
      code(await module.open({ sendKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n" })),
    ).toBe("auth");
    const other = await new SeededCrypto(new SeededRandom("other")).generateKeyPair();
    expect(code(await module.open({ signWith: other, sendKey: module.publicKeyPem }))).toBe("auth");
    expect(await hub.store.devices.getDevice(module.device)).toBeUndefined();
  });

  it("accepts a challenge once, from the device it was given to, within two minutes", async () => {
    const module = await hub.module();
    const stranger = await hub.module();
    const hello = await module.hello();
    expect(code(await stranger.open({ challenge: hello.challenge, sendKey: stranger.publicKeyPem }))).toBe(
      "auth",
    );
    expect(
      (await module.open({ challenge: hello.challenge, sendKey: module.publicKeyPem })).err,
    ).toBeUndefined();
    expect(code(await module.open({ challenge: hello.challenge }))).toBe("auth");
    const again = await module.hello();
    await hub.clock.advance(2 * 60_000 + 1);
    expect(code(await module.open({ challenge: again.challenge }))).toBe("auth");
    expect((await module.open()).err).toBeUndefined();
  });

  it("accepts signatures made by any Ed25519 implementation (WebCrypto's too)", async () => {
    const web = new WebCryptoCrypto();
    const keys = await web.generateKeyPair();
    const module = await hub.module();
    const hello = await module.hello();
    const signature = await web.sign(
      keys.privateKey,
      new TextEncoder().encode(signedText(module.device, module.product, hello.challenge)),
    );
    const reply = await module.request({
      type: "open",
      device: module.device,
      product: module.product,
      challenge: hello.challenge,
      signature: encodeBase64(signature),
      key: publicKeyToPem(keys.publicKey),
      why: "boot",
      tracker: "",
      context: sessionContext(),
    });
    expect(reply.err).toBeUndefined();
  });
});
