import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { newFleet } from "../../../../hub/store/records.js";
import { StoreError } from "../../../../hub/store/StoreError.js";
import { describeEachBackend } from "./support/backends.js";
import { ORG, OTHER_PROJECT, PRODUCT, PROJECT, putDevice, seedProject, T0, USER } from "./support/seed.js";

describeEachBackend("a hub store's accounts, projects, fleets, credentials and descriptions", (backend) => {
  let store: HubStore;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
  });
  afterEach(() => backend.dispose(store));

  it("finds users by UID and by username whatever its case, and keeps organization roles", async () => {
    expect((await store.accounts.getUser(USER))?.name).toBe("Ada");
    expect((await store.accounts.getUserByUsername("ada@example.com"))?.uid).toBe(USER);
    expect((await store.accounts.getUserByUsername("ADA@EXAMPLE.COM"))?.uid).toBe(USER);
    await expect(
      store.accounts.createUser({
        uid: "user:2",
        username: "ada@example.COM",
        name: "Twin",
        email: "x",
        passwordHash: "h",
        staff: true,
        created: T0 + 5,
      }),
    ).rejects.toThrow();
    await store.accounts.setPasswordHash(USER, "new-hash");
    expect((await store.accounts.getUser(USER))?.passwordHash).toBe("new-hash");
    expect((await store.accounts.listUsers()).map((u) => u.uid)).toEqual([USER]);
    const org = await store.accounts.getOrganization(ORG);
    expect(org).toMatchObject({
      uid: ORG,
      planType: "Essentials",
      eventCapacity: 5000,
      planEnd: null,
      suspended: false,
    });
    await store.accounts.setOrgMember(ORG, USER, "org_member");
    await store.accounts.setOrgMember(ORG, USER, "org_admin");
    expect(await store.accounts.getOrgRole(ORG, USER)).toBe("org_admin");
    expect(await store.accounts.getOrgRole(ORG, "user:none")).toBeUndefined();
    expect((await store.accounts.listOrganizationsOf(USER)).map((o) => [o.org.uid, o.role])).toEqual([
      [ORG, "org_admin"],
    ]);
  });

  it("keeps projects oldest first with their members and roles", async () => {
    expect((await store.projects.listProjects()).map((p) => p.uid)).toEqual([PROJECT, OTHER_PROJECT]);
    expect(await store.projects.getProject("app:none")).toBeUndefined();
    await store.projects.setMember(PROJECT, USER, "viewer");
    await store.projects.setMember(PROJECT, USER, "owner");
    await store.projects.setMember(OTHER_PROJECT, USER, "developer");
    expect(await store.projects.getRole(PROJECT, USER)).toBe("owner");
    expect((await store.projects.listProjectsOf(USER)).map((p) => [p.project.uid, p.role])).toEqual([
      [PROJECT, "owner"],
      [OTHER_PROJECT, "developer"],
    ]);
    expect((await store.projects.listMembers(PROJECT)).map((m) => [m.user.uid, m.role])).toEqual([
      [USER, "owner"],
    ]);
    await store.projects.removeMember(PROJECT, USER);
    expect(await store.projects.getRole(PROJECT, USER)).toBeUndefined();
  });

  it("refuses a taken product UID and the deletion of a product devices still use", async () => {
    const product = {
      uid: PRODUCT,
      projectUid: PROJECT,
      label: "Again",
      disableDevicesByDefault: true,
      autoProvisionFleets: ["fleet:a"],
      created: T0,
    };
    await expect(store.projects.createProduct(product)).rejects.toMatchObject({ code: "conflict" });
    await store.projects.createProduct({ ...product, uid: "product:test.cardsim:other" });
    expect((await store.projects.getProduct("product:test.cardsim:other"))?.autoProvisionFleets).toEqual([
      "fleet:a",
    ]);
    expect((await store.projects.listProducts(PROJECT)).map((p) => p.uid)).toEqual([
      "product:test.cardsim:other",
      PRODUCT,
    ]);
    await putDevice(store, 1);
    const refusal = await store.projects.deleteProduct(PRODUCT).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(StoreError);
    expect((refusal as StoreError).code).toBe("conflict");
    await store.devices.deleteDevice("dev:1", false);
    await store.projects.deleteProduct(PRODUCT);
    expect(await store.projects.getProduct(PRODUCT)).toBeUndefined();
  });

  it("updates a fleet's fields and members in one unit and deletes it with its variables", async () => {
    await store.projects.createFleet(
      newFleet({ uid: "fleet:a", projectUid: PROJECT, label: "A", created: T0 }),
    );
    await store.projects.createFleet(
      newFleet({ uid: "fleet:b", projectUid: PROJECT, label: "B", created: T0 + 1 }),
    );
    await putDevice(store, 1);
    await putDevice(store, 2);
    const updated = await store.projects.updateFleet(
      "fleet:a",
      { label: "A2", watchdogMins: 5 },
      { add: ["dev:1", "dev:2"], remove: [] },
    );
    expect(updated).toMatchObject({ uid: "fleet:a", label: "A2", watchdogMins: 5, smartRuleEnabled: false });
    expect((await store.devices.getDevice("dev:1"))?.fleetUids).toEqual(["fleet:a"]);
    // A device of no project of the fleet's: nothing of the update is kept.
    await expect(
      store.projects.updateFleet("fleet:a", { label: "A3" }, { add: ["dev:none"], remove: ["dev:1"] }),
    ).rejects.toMatchObject({ code: "not-found" });
    expect((await store.projects.getFleet("fleet:a"))?.label).toBe("A2");
    expect((await store.devices.getDevice("dev:1"))?.fleetUids).toEqual(["fleet:a"]);
    await expect(store.projects.updateFleet("fleet:none", {})).rejects.toMatchObject({ code: "not-found" });
    await store.env.set({ kind: "fleet", uid: "fleet:a" }, { k: "v" }, T0);
    await store.projects.deleteFleet("fleet:a");
    expect(await store.projects.getFleet("fleet:a")).toBeUndefined();
    expect((await store.projects.listFleets(PROJECT)).map((f) => f.uid)).toEqual(["fleet:b"]);
    expect((await store.devices.getDevice("dev:2"))?.fleetUids).toEqual([]);
    expect(await store.env.get({ kind: "fleet", uid: "fleet:a" })).toEqual([]);
  });

  it("finds tokens by hash, suspends, touches, deletes and purges the expired ones but personal ones", async () => {
    const token = (uid: string, kind: "pat" | "session" | "oauth", expires: number | null) => ({
      uid,
      kind,
      hash: `hash-${uid}`,
      userUid: USER,
      clientId: null,
      projectUid: null,
      role: null,
      scope: null,
      name: uid,
      description: "",
      created: T0,
      expires,
      suspended: false,
      lastUsed: null,
    });
    await store.credentials.createToken(token("t1", "pat", T0 + 10));
    await store.credentials.createToken(token("t2", "session", T0 + 10));
    await store.credentials.createToken(token("t3", "session", null));
    expect((await store.credentials.findTokenByHash("hash-t2"))?.uid).toBe("t2");
    expect(await store.credentials.setTokenSuspended("t1", true)).toBe(true);
    expect(await store.credentials.setTokenSuspended("none", true)).toBe(false);
    await store.credentials.touchToken("t1", T0 + 3);
    expect(await store.credentials.getToken("t1")).toMatchObject({ suspended: true, lastUsed: T0 + 3 });
    expect((await store.credentials.listTokens("session")).map((t) => t.uid)).toEqual(["t2", "t3"]);
    expect(await store.credentials.purgeExpiredTokens(T0 + 10)).toBe(1);
    expect(await store.credentials.getToken("t1")).toBeDefined();
    expect(await store.credentials.getToken("t2")).toBeUndefined();
    expect(await store.credentials.deleteToken("t3")).toBe(true);
    expect(await store.credentials.deleteToken("t3")).toBe(false);
    const client = {
      clientId: "c1",
      secretHash: "s",
      projectUid: PROJECT,
      role: "viewer" as const,
      name: "C",
      created: T0,
      createdBy: USER,
    };
    await store.credentials.createOAuthClient(client);
    expect(await store.credentials.getOAuthClient("c1")).toEqual(client);
    expect(await store.credentials.listOAuthClients()).toEqual([client]);
  });

  it("keeps descriptions' bytes, and a replacement keeps the first creation time and author", async () => {
    const first = await store.descriptions.put(
      {
        name: "b.json",
        contentType: "application/json",
        size: 0,
        created: T0,
        modified: T0,
        createdBy: USER,
      },
      new Uint8Array([1, 2, 3]),
    );
    expect(first).toEqual({
      name: "b.json",
      contentType: "application/json",
      size: 3,
      created: T0,
      modified: T0,
      createdBy: USER,
    });
    const again = await store.descriptions.put(
      {
        name: "b.json",
        contentType: "text/plain",
        size: 0,
        created: T0 + 9,
        modified: T0 + 9,
        createdBy: "user:other",
      },
      new Uint8Array([0, 255]),
    );
    expect(again).toEqual({
      name: "b.json",
      contentType: "text/plain",
      size: 2,
      created: T0,
      modified: T0 + 9,
      createdBy: USER,
    });
    const read = await store.descriptions.get("b.json");
    expect([...read!.content]).toEqual([0, 255]);
    await store.descriptions.put({ ...first, name: "a.json" }, new Uint8Array(0));
    expect((await store.descriptions.list()).map((d) => d.name)).toEqual(["a.json", "b.json"]);
    expect(await store.descriptions.delete("b.json")).toBe(true);
    expect(await store.descriptions.delete("b.json")).toBe(false);
    expect(await store.getMeta("k")).toBeUndefined();
    await store.setMeta("k", "1");
    await store.setMeta("k", "2");
    expect(await store.getMeta("k")).toBe("2");
  });
});
