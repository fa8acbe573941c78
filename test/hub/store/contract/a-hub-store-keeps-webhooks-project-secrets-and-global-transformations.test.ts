import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { describeEachBackend } from "./support/backends.js";
import {
  anEvent,
  OTHER_PROJECT,
  PRODUCT,
  PROJECT,
  putDevice,
  seedProject,
  T0,
  USER,
} from "./support/seed.js";

describeEachBackend("a hub store's webhooks, project secrets and global transformations", (backend) => {
  let store: HubStore;
  const integrations = () => store.integrations;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
  });

  afterEach(async () => {
    await store.close();
  });

  it("creates, replaces (keeping the creation time), lists by name and deletes webhooks per project", async () => {
    const hook = {
      projectUid: PROJECT,
      id: "ttn",
      disabled: false,
      transform: "",
      created: T0,
      modified: T0,
    };
    expect(await integrations().putWebhook(hook)).toEqual(hook);
    await integrations().putWebhook({ ...hook, id: "abc" });
    await integrations().putWebhook({ ...hook, projectUid: OTHER_PROJECT });
    const replaced = await integrations().putWebhook({
      ...hook,
      disabled: true,
      transform: "{'body': body}",
      created: T0 + 5,
      modified: T0 + 5,
    });
    expect(replaced).toEqual({ ...hook, disabled: true, transform: "{'body': body}", modified: T0 + 5 });
    expect((await integrations().listWebhooks(PROJECT)).map((w) => w.id)).toEqual(["abc", "ttn"]);
    expect(await integrations().getWebhook(PROJECT, "nope")).toBeUndefined();
    expect(await integrations().deleteWebhook(PROJECT, "ttn")).toBe(true);
    expect(await integrations().deleteWebhook(PROJECT, "ttn")).toBe(false);
    expect(await integrations().getWebhook(OTHER_PROJECT, "ttn")).toMatchObject({
      id: "ttn",
      disabled: false,
    });
  });

  it("keeps a secret's ciphertext apart from its listing, refuses a taken name and updates only one that exists", async () => {
    const secret = {
      projectUid: PROJECT,
      name: "API_KEY",
      created: T0,
      createdBy: USER,
      modified: null,
      modifiedBy: null,
    };
    expect(await integrations().createSecret(secret, "v1:cipher-a")).toBe(true);
    expect(await integrations().createSecret({ ...secret, created: T0 + 1 }, "v1:cipher-b")).toBe(false);
    expect(await integrations().getSecretCiphertext(PROJECT, "API_KEY")).toBe("v1:cipher-a");
    expect(await integrations().getSecretCiphertext(OTHER_PROJECT, "API_KEY")).toBeUndefined();
    const updated = await integrations().updateSecret(PROJECT, "API_KEY", "v1:cipher-c", T0 + 9, "user:2");
    expect(updated).toEqual({ ...secret, modified: T0 + 9, modifiedBy: "user:2" });
    expect(await integrations().getSecretCiphertext(PROJECT, "API_KEY")).toBe("v1:cipher-c");
    expect(await integrations().updateSecret(PROJECT, "NONE", "x", T0, USER)).toBeUndefined();
    await integrations().createSecret({ ...secret, name: "A_FIRST" }, "v1:x");
    const listed = await integrations().listSecrets(PROJECT);
    expect(listed.map((s) => s.name)).toEqual(["API_KEY", "A_FIRST"]); // byte order;
    expect(JSON.stringify(listed)).not.toContain("cipher");
    expect(await integrations().deleteSecret(PROJECT, "API_KEY")).toBe(true);
    expect(await integrations().deleteSecret(PROJECT, "API_KEY")).toBe(false);
    expect(await integrations().getSecret(PROJECT, "API_KEY")).toBeUndefined();
  });

  it("sets a global transformation's expression and flag independently", async () => {
    expect(await integrations().getGlobalTransform(PROJECT)).toBeUndefined();
    expect(await integrations().setGlobalTransform(PROJECT, { enabled: true }, T0)).toEqual({
      projectUid: PROJECT,
      transform: "",
      enabled: true,
      modified: T0,
    });
    await integrations().setGlobalTransform(PROJECT, { transform: "$merge([$, {'x': 1}])" }, T0 + 1);
    expect(await integrations().getGlobalTransform(PROJECT)).toEqual({
      projectUid: PROJECT,
      transform: "$merge([$, {'x': 1}])",
      enabled: true,
      modified: T0 + 1,
    });
    await integrations().setGlobalTransform(PROJECT, { enabled: false }, T0 + 2);
    expect(await integrations().getGlobalTransform(PROJECT)).toMatchObject({
      transform: "$merge([$, {'x': 1}])",
      enabled: false,
    });
    expect(await integrations().getGlobalTransform(OTHER_PROJECT)).toBeUndefined();
  });

  it("deletes a project with everything of it, and nothing of another project", async () => {
    await putDevice(store, 1);
    await store.notefiles.addNote("dev:1", "config.db", { noteId: "a", body: { v: 1 }, payload: null }, T0);
    await store.telemetry.addEvent(anEvent("e1"));
    await store.telemetry.addEvent(anEvent("e2", { projectUid: OTHER_PROJECT, deviceUid: "dev:2" }));
    await store.env.set({ kind: "project", uid: PROJECT }, { K: "1" }, T0);
    await store.env.set({ kind: "project", uid: OTHER_PROJECT }, { K: "2" }, T0);
    await store.projects.setMember(PROJECT, USER, "owner");
    await store.integrations.putWebhook({
      projectUid: PROJECT,
      id: "w",
      disabled: false,
      transform: "",
      created: T0,
      modified: T0,
    });
    const secret = {
      projectUid: PROJECT,
      name: "S",
      created: T0,
      createdBy: USER,
      modified: null,
      modifiedBy: null,
    };
    await store.integrations.createSecret(secret, "v1:x");

    expect(await store.deleteProject(PROJECT)).toBe(true);
    expect(await store.projects.getProject(PROJECT)).toBeUndefined();
    expect(await store.projects.getProduct(PRODUCT)).toBeUndefined();
    expect(await store.devices.getDevice("dev:1")).toBeUndefined();
    expect(await store.telemetry.getEvent(PROJECT, "e1")).toBeUndefined();
    expect(await store.integrations.listWebhooks(PROJECT)).toEqual([]);
    expect(await store.integrations.listSecrets(PROJECT)).toEqual([]);
    expect(await store.projects.listProjectsOf(USER)).toEqual([]);
    expect(await store.env.get({ kind: "project", uid: PROJECT })).toEqual([]);
    // The other project keeps what it had; a second deletion finds nothing.
    expect(await store.projects.getProject(OTHER_PROJECT)).toBeDefined();
    expect(await store.telemetry.getEvent(OTHER_PROJECT, "e2")).toBeDefined();
    expect((await store.env.get({ kind: "project", uid: OTHER_PROJECT })).map((v) => v.value)).toEqual(["2"]);
    expect(await store.deleteProject(PROJECT)).toBe(false);
  });
});
