import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../core/jsonDepth.js";
import { ENDPOINTS } from "./support/endpoints.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";
import { seedForEndpoints } from "./support/seedForEndpoints.js";

/** JSON text of an object nested `levels` deep: `{"a":{"a":…{}…}}`. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
}

/** A request body `{"body": <levels - 1 deep>}`: `levels` deep in all. */
const noteBody = (levels: number): string => `{"body":${nested(levels - 1)}}`;

/**
 * JSON nested thousands of levels deep used to answer 500 (and, just below that, be stored and
 * break every listing of the device). Nesting is capped at MAX_JSON_DEPTH for every JSON body, and
 * whatever is already stored is served without failing (defect d).
 */
describe("JSON nested too deeply is refused, and stored rows never break listings", () => {
  let hub: TestHub;
  let values: Record<string, string>;
  let D: string;
  const n = (suffix: string): string => hub.p(`/devices/${D}${suffix}`);
  const send = (method: string, url: string, payload: string, contentType = "application/json") =>
    hub.request(method, url, {
      payload,
      contentType,
      // A device-PIN route takes the seeded device's PIN rather than a token.
      ...(url.endsWith("_with_pin") ? { as: null, headers: { "x-auth-token": values.PIN! } } : {}),
    });

  beforeAll(async () => {
    hub = await TestHub.start();
    values = await seedForEndpoints(hub);
    D = values.D!;
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("refuses note add, update and signal bodies nested past the limit with a 400", async () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 4_100, 100_000]) {
      for (const [method, path] of [
        ["POST", "/notes/data.qi"],
        ["POST", "/notes/config.db/deep"],
        ["PUT", "/notes/config.db/setting"],
        ["POST", "/signal"],
      ] as const) {
        const res = await send(method, n(path), noteBody(levels));
        expectErrorBody(res, 400);
        expect(res.json.err, `${method} ${path} at ${levels}`).toMatch(/nested .*100 levels/);
      }
    }
    expectErrorBody(await hub.get(n("/notes/config.db/deep")), 404);
  });

  it("accepts a body nested exactly to the limit, and lists it", async () => {
    expect((await send("POST", n("/notes/limit.db/edge"), noteBody(MAX_JSON_DEPTH))).status).toBe(200);
    expect((await send("POST", n("/signal"), noteBody(MAX_JSON_DEPTH))).status).toBe(200);
    expect((await hub.get(n("/files?files=limit.db"))).status).toBe(200);
    expect((await hub.get(n("/latest"))).status).toBe(200);
  });

  it("applies the limit to every JSON body of every route, whatever the charset", async () => {
    const routes = ENDPOINTS.filter((e) => e.method !== "GET" && !e.path.startsWith("/v1/description/"));
    for (const e of routes) {
      const url = e.path.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? k);
      for (const type of ["application/json", "application/json; charset=utf-8"]) {
        const res = await send(e.method, url, `[${nested(MAX_JSON_DEPTH)}]`, type);
        expectErrorBody(res, 400);
        expect(res.json.err, `${e.method} ${url}`).toMatch(/nested/);
      }
    }
    const login = await hub.request("POST", "/auth/login", {
      as: null,
      payload: `{"username":"admin@cardsim.local","password":${nested(MAX_JSON_DEPTH + 1)}}`,
      contentType: "application/json",
    });
    expectErrorBody(login, 400);
  });

  it("serves rows stored before the limit (too deep, or not JSON) with a marker instead of failing", async () => {
    const now = hub.clock.now();
    const file = "poisoned.db";
    for (const id of ["deep", "broken", "fine"]) {
      await hub.store.notefiles.addNote(D, file, { noteId: id, body: { id }, payload: null }, now);
    }
    await hub.store.notefiles.addNote(D, "poisoned.qi", { noteId: null, body: { q: 1 }, payload: null }, now);
    const poison: [string, string, string][] = [
      ["UPDATE notes SET body = ? WHERE file_id = ? AND note_id = 'deep'", nested(10_000), file],
      ["UPDATE notes SET body = ? WHERE file_id = ? AND note_id = 'broken'", '{"cut short":', file],
      ["UPDATE notes SET body = ? WHERE file_id = ?", nested(MAX_JSON_DEPTH + 1), "poisoned.qi"],
    ];
    for (const [sql, text, f] of poison) hub.rawSql(sql, text, f);
    for (const [uid, text] of [
      ["00000000-0000-4000-8000-00000000dee9", nested(10_000)],
      ["00000000-0000-4000-8000-00000000b0c1", "not json"],
    ] as const) {
      await hub.store.telemetry.addEvent({
        uid,
        projectUid: hub.projectUid,
        deviceUid: D,
        sessionUid: null,
        file: `${uid.slice(-4)}.qo`,
        received: now / 1000,
        whenSec: Math.floor(now / 1000),
        data: {},
      });
      hub.rawSql("UPDATE events SET data = ? WHERE uid = ?", text, uid);
      await hub.store.telemetry.addSession({
        uid,
        deviceUid: D,
        projectUid: hub.projectUid,
        beganSec: Math.floor(now / 1000),
        endedSec: null,
        firstSync: false,
        data: {},
      });
      hub.rawSql("UPDATE sessions SET data = ? WHERE uid = ?", text, uid);
    }

    const marker = { _unreadable: expect.stringMatching(/stored|JSON/) };
    for (const as of ["owner", "viewer"]) {
      const files = await hub.get(n("/files"), { as });
      expect(files.status, files.text.slice(0, 200)).toBe(200);
      const poisoned = files.json.find((f: { id: string }) => f.id === file);
      expect(poisoned.notes.map((x: { id: string; body: unknown }) => [x.id, x.body])).toEqual([
        ["deep", marker],
        ["broken", marker],
        ["fine", { id: "fine" }],
      ]);
      const listing = await hub.get(n(`/notes/${file}`), { as });
      expect(listing.status).toBe(200);
      expect(listing.json.notes.deep.body).toEqual(marker);
      expect((await hub.get(n("/notes/poisoned.qi"), { as })).json.notes["1:1"].body).toEqual(marker);
      expect((await hub.get(n(`/notes/${file}/deep`), { as })).json.body).toEqual(marker);
      expect((await hub.get(n(`/notes/${file}/changes?tracker=t`), { as })).status).toBe(200);
      const latest = await hub.get(n("/latest"), { as });
      expect(latest.status).toBe(200);
      const events = latest.json.latest_events.filter((e: { file: string }) =>
        /^(dee9|b0c1)\.qo$/.test(e.file),
      );
      expect(events).toHaveLength(2);
      for (const e of events) expect(e).toMatchObject(marker);
      const sessions = await hub.get(n("/sessions"), { as });
      expect(sessions.status).toBe(200);
      expect(sessions.json.sessions.filter((s: { _unreadable?: string }) => s._unreadable)).toHaveLength(2);
    }
    // The unreadable note can still be replaced and deleted.
    expect((await hub.put(n(`/notes/${file}/deep`), { body: { mended: true } })).status).toBe(200);
    expect((await hub.get(n(`/notes/${file}/deep`))).json.body).toEqual({ mended: true });
    expect((await hub.delete(n(`/notes/${file}/broken`))).status).toBe(200);
  });
});
