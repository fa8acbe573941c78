import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "./support/endpoints.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";
import { noteState } from "./support/noteState.js";
import { seedForEndpoints } from "./support/seedForEndpoints.js";

/**
 * A read with `delete=true` takes what it returns, so it is a write: whichever path reaches the
 * note (the current definition's note read, the older client's changes call, the same path read
 * as the note named `changes`), a viewer is refused before anything changes (defect b).
 */
describe("taking notes through any read path needs the developer role", () => {
  let hub: TestHub;
  let values: Record<string, string>;
  let D: string;
  const n = (suffix: string): string => hub.p(`/devices/${D}${suffix}`);

  beforeAll(async () => {
    hub = await TestHub.start();
    values = await seedForEndpoints(hub);
    D = values.D!;
    await hub.store.notefiles.addNote(D, "data.qi", { noteId: null, body: { q: 1 }, payload: null }, 0);
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("refuses a viewer who reads the note named changes with delete=true, and leaves it", async () => {
    const before = await noteState(hub, D);
    for (const path of ["/notes/config.db/changes", "/notes/config.db/chang%65s"]) {
      for (const value of ["true", "1", "TRUE", "yes"]) {
        const res = await hub.get(n(`${path}?delete=${value}`), { as: "viewer" });
        expectErrorBody(res, 403);
        expect(res.json.err, `${path} delete=${value}`).toMatch(/developer/);
      }
    }
    expect(await noteState(hub, D)).toBe(before);
    expect((await hub.get(n("/notes/config.db/changes"), { as: "viewer" })).json).toMatchObject({
      body: { v: "changes" },
    });
  });

  it("checks the role before it looks for the device or the note", async () => {
    expectErrorBody(await hub.get(hub.p("/devices/dev:404/notes/x.db/n?delete=true"), { as: "viewer" }), 403);
    expectErrorBody(
      await hub.get(hub.p("/devices/dev:404/notes/x.db/changes?delete=true"), { as: "viewer" }),
      403,
    );
    expectErrorBody(await hub.get(hub.p("/devices/dev:404/notes/x.db?delete=true"), { as: "viewer" }), 403);
  });

  it("no GET endpoint lets a viewer change a device's notes, whatever it is asked", async () => {
    const trackers = ["t"];
    const before = await noteState(hub, D, trackers);
    const query = "delete=true&deleted=true&tracker=t&start=true&stop=true&max=1";
    for (const e of ENDPOINTS.filter((x) => x.method === "GET")) {
      const path = e.path.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? k);
      for (const q of [query, "delete=true"]) {
        const res = await hub.get(`${path}?${q}`, { as: "viewer" });
        expect(res.status, `${path}?${q}: ${res.text}`).not.toBe(500);
      }
    }
    // The tracker a viewer names may move (reading with a tracker is a read), nothing else.
    const after = JSON.parse(await noteState(hub, D, trackers));
    const was = JSON.parse(before);
    expect(after.files).toEqual(was.files);
    expect(after.events).toEqual(was.events);
  });

  it("lets a developer take the note named changes (and only that note)", async () => {
    const res = await hub.get(n("/notes/config.db/changes?delete=true"), { as: "developer" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ body: { v: "changes" } });
    // The tombstone still answers for the name: a read without tracker arguments is the note read.
    expectErrorBody(await hub.get(n("/notes/config.db/changes")), 404);
    expect((await hub.get(n("/notes/config.db/changes?deleted=true"))).json).toMatchObject({ deleted: true });
    expect((await hub.get(n("/notes/config.db/setting"))).json).toMatchObject({ body: { v: "setting" } });
  });
});
