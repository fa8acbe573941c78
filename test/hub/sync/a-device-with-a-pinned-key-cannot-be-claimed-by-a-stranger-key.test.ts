import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NoteRecord } from "../../../protocol/NoteRecord.js";
import { ALL_VIAS, SyncFixture } from "./support/syncFixture.js";
import type { ScriptedModule } from "./support/ScriptedModule.js";

const code = (reply: { err?: string }): string | undefined => /^\{([a-z-]+)\}/.exec(reply.err ?? "")?.[1];

/**
 * A device provisioned through the API, waiting for its first session with a secret in its
 * environment and a note for it: whoever says hello first for its DeviceUID must not get either.
 * Pinning its key (`public_key` at provisioning, or `PUT …/public-key`) lets only the real module in.
 */
describe.each(ALL_VIAS)("pinning a device's key (%s)", (via) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via);
  });
  afterAll(async () => hub.close());

  /** The device's environment gets a secret and its inbound queue a note, before it ever connects. */
  async function waitingFor(device: string): Promise<void> {
    const path = `/v1/projects/${hub.projectUid}/devices/${device}`;
    const env = await hub.api("PUT", `${path}/environment_variables`, {
      environment_variables: { wifi_password: "hunter2" },
    });
    expect(env.status).toBe(200);
    const note = await hub.api("POST", `${path}/notes/commands.qi`, { body: { open: "valve" } });
    expect(note.status).toBe(200);
  }

  /** A stranger's attempt: hello and open for the device's UID with its own key, then a pull. */
  async function claim(stranger: ScriptedModule): Promise<void> {
    const open = await stranger.open({ sendKey: stranger.publicKeyPem });
    expect(code(open)).toBe("auth");
    expect(JSON.stringify(open)).not.toContain("hunter2");
    // Without a session nothing can be pulled.
    const pulled = await stranger.pull("commands.qi");
    expect(pulled.err).toBeDefined();
    expect(pulled.notes).toBeUndefined();
  }

  async function realModuleSyncs(module: ScriptedModule): Promise<void> {
    const open = await module.open();
    expect(open.err).toBeUndefined();
    expect(open.env).toMatchObject({ device: { wifi_password: "hunter2" } });
    const notes: NoteRecord[] = await module.pullAll("commands.qi");
    expect(notes.map((n) => n.body)).toEqual([{ open: "valve" }]);
    expect((await module.close()).err).toBeUndefined();
  }

  it("refuses a stranger's key for a device provisioned with its public_key, and lets the real module in", async () => {
    const module = await hub.module({ seed: 1 });
    const provisioned = await hub.api(
      "POST",
      `/v1/projects/${hub.projectUid}/devices/${module.device}/provision`,
      { product_uid: hub.productUid, public_key: module.publicKeyPem },
    );
    expect(provisioned.status).toBe(200);
    await waitingFor(module.device);
    const stranger = await hub.module({ device: module.device, seed: 666 });
    await claim(stranger);
    await realModuleSyncs(module);
    // The stranger comes too late as well.
    await claim(stranger);
    const key = await hub.api("GET", `/v1/projects/${hub.projectUid}/devices/${module.device}/public-key`);
    expect(key.json).toEqual({ uid: module.device, key: module.publicKeyPem });
  });

  it("refuses a stranger's key for a device whose key was pinned with PUT …/public-key", async () => {
    const module = await hub.module({ seed: 2 });
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("POST", `${path}/provision`, { product_uid: hub.productUid })).status).toBe(200);
    const pinned = await hub.api("PUT", `${path}/public-key`, { key: module.publicKeyPem });
    expect(pinned.status).toBe(200);
    expect(pinned.json).toEqual({ uid: module.device, key: module.publicKeyPem });
    await waitingFor(module.device);
    const stranger = await hub.module({ device: module.device, seed: 667 });
    await claim(stranger);
    await realModuleSyncs(module);
  });

  it("pins a new key in place of the one a device had, ending the sessions opened with the old one", async () => {
    const module = await hub.module({ seed: 3 });
    expect((await module.open()).err).toBeUndefined();
    const replacement = await hub.module({ device: module.device, seed: 4 });
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("PUT", `${path}/public-key`, { key: replacement.publicKeyPem })).status).toBe(200);
    expect(code(await module.pull("commands.qi"))).toBe("session-expired");
    expect(code(await module.open())).toBe("auth");
    expect((await replacement.open()).err).toBeUndefined();
  });

  it("answers 400 with what is wrong for a key that is not an Ed25519 public key, and 404 for an unknown device", async () => {
    const module = await hub.module({ seed: 5 });
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("POST", `${path}/provision`, { product_uid: hub.productUid })).status).toBe(200);
    const cases: [unknown, RegExp][] = [
      [{}, /key is required/],
      [{ key: 42 }, /key must be a string/],
      [{ key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA" }, /key is not an Ed25519 public key in PEM/],
      // An RSA key's SubjectPublicKeyInfo is no Ed25519 key.
      [
        {
          key: "-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAK0=\n-----END PUBLIC KEY-----\n",
        },
        /key is not an Ed25519 public key in PEM/,
      ],
      // The curve's neutral point (small order): any signature would do for it.
      [
        {
          key: "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n-----END PUBLIC KEY-----\n",
        },
        /small order/,
      ],
    ];
    for (const [body, text] of cases) {
      const res = await hub.api("PUT", `${path}/public-key`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.err).toMatch(text);
    }
    const bad = await hub.api(
      "POST",
      `/v1/projects/${hub.projectUid}/devices/dev:864475009999999/provision`,
      {
        product_uid: hub.productUid,
        public_key: "not a key",
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.json.err).toMatch(/public_key is not an Ed25519 public key in PEM/);
    expect(await hub.store.devices.getDevice("dev:864475009999999")).toBeUndefined();
    // Still no key: nothing was pinned.
    expect((await hub.api("GET", `${path}/public-key`)).status).toBe(404);
    const unknown = await hub.api(
      "PUT",
      `/v1/projects/${hub.projectUid}/devices/dev:864475008888888/public-key`,
      {
        key: module.publicKeyPem,
      },
    );
    expect(unknown.status).toBe(404);
  });
});

describe.each(ALL_VIAS)("a hub in pinned mode (%s)", (via) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { deviceAuth: "pinned" });
  });
  afterAll(async () => hub.close());

  it("refuses a device without a pinned key, saying how to pin it, and takes it once pinned", async () => {
    const module = await hub.module({ seed: 10 });
    const refused = await module.open();
    expect(code(refused)).toBe("auth");
    expect(refused.err).toContain(`PUT /v1/projects/${hub.projectUid}/devices/${module.device}/public-key`);
    expect(refused.err).toContain("cardsim module --print-key");
    expect(refused.err!.length).toBeLessThanOrEqual(253);
    // Nothing was provisioned by the attempt.
    expect(await hub.store.devices.getDevice(module.device)).toBeUndefined();
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    const provisioned = await hub.api("POST", `${path}/provision`, {
      product_uid: hub.productUid,
      public_key: module.publicKeyPem,
    });
    expect(provisioned.status).toBe(200);
    expect((await module.open()).err).toBeUndefined();
  });

  it("refuses a device created without a key (a webhook event, a provisioning) until its key is pinned", async () => {
    const module = await hub.module({ seed: 11 });
    const path = `/v1/projects/${hub.projectUid}/devices/${module.device}`;
    expect((await hub.api("POST", `${path}/provision`, { product_uid: hub.productUid })).status).toBe(200);
    const stranger = await hub.module({ device: module.device, seed: 668 });
    expect(code(await stranger.open({ sendKey: stranger.publicKeyPem }))).toBe("auth");
    expect(code(await module.open())).toBe("auth");
    // A stranger's key refused with the same words as no pinned key: nothing tells them apart.
    expect((await hub.api("PUT", `${path}/public-key`, { key: module.publicKeyPem })).status).toBe(200);
    const again = await stranger.open({ sendKey: stranger.publicKeyPem });
    expect(code(again)).toBe("auth");
    expect(again.err).toContain("--print-key");
    expect((await module.open()).err).toBeUndefined();
  });
});
