import { afterAll, describe, expect, it } from "vitest";
import { ENDPOINTS, type Endpoint } from "./support/endpoints.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

/** Seeds what every endpoint of the table needs and returns the placeholder values. */
export async function seedForEndpoints(hub: TestHub): Promise<Record<string, string>> {
  const s = hub.store;
  const now = hub.clock.now();
  const fleet = hub.ids.fleetUid();
  const spareFleet = hub.ids.fleetUid();
  for (const uid of [fleet, spareFleet]) {
    await s.projects.createFleet({
      uid,
      projectUid: hub.projectUid,
      label: uid === fleet ? "Fleet" : "Spare",
      created: now,
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
  }
  const device = await hub.device({
    fleetUids: [fleet],
    publicKey: "-----BEGIN PUBLIC KEY-----\nMFk=\n-----END PUBLIC KEY-----\n",
  });
  const spare = await hub.device();
  await s.projects.createProduct({
    uid: "product:com.example:spare",
    projectUid: hub.projectUid,
    label: "Spare",
    disableDevicesByDefault: false,
    autoProvisionFleets: null,
    created: now,
  });
  for (const scope of [
    { kind: "project", uid: hub.projectUid },
    { kind: "fleet", uid: fleet },
    { kind: "device", uid: device.uid },
  ] as const) {
    await s.env.set(scope, { K: "1" }, now);
  }
  for (const id of ["setting", "spare", "changes"]) {
    await s.notefiles.addNote(device.uid, "config.db", { noteId: id, body: { v: id }, payload: null }, now);
  }
  await s.notefiles.createNotefile(device.uid, "spare.db", now);
  for (const name of ["readme", "gone"]) {
    await s.descriptions.put(
      { name, contentType: "text/plain", size: 2, created: now, modified: now, createdBy: hub.users.owner! },
      new TextEncoder().encode("hi"),
    );
  }
  return {
    P: hub.projectUid,
    D: device.uid,
    SPARED: spare.uid,
    F: fleet,
    SPAREF: spareFleet,
    PR: hub.productUid,
    K: "K",
    ORG: hub.orgUid,
  };
}

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{([A-Z]+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);
}

function fillBody(body: unknown, values: Record<string, string>): unknown {
  return body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body), values));
}

const LOWER: Record<string, string | undefined> = {
  developer: "viewer",
  owner: "developer",
  staff: "developer",
};

describe.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as [string, Endpoint]))(
  "%s",
  (_name, endpoint) => {
    const hubs: TestHub[] = [];
    afterAll(async () => {
      for (const hub of hubs) {
        expect(hub.violations).toEqual([]);
        await hub.close();
      }
    });

    it("answers 401 without a token or with a bad one, 403 to a caller without the role, 404 for an unknown project, 429 past the rate limit", async () => {
      const hub = await TestHub.start({ rateLimits: { perMinute: 4, perDay: 1000 } });
      hubs.push(hub);
      const values = await seedForEndpoints(hub);
      const url = fill(endpoint.path, values);
      const body = fillBody(endpoint.body, values);
      const call = (as: string | null, target = url) =>
        hub.request(endpoint.method, target, {
          as,
          ...(body !== undefined ? { body } : {}),
          ...(endpoint.path.startsWith("/v1/description/") && endpoint.method === "POST"
            ? { payload: JSON.stringify(body), contentType: "application/json", body: undefined }
            : {}),
        });

      expectErrorBody(await call(null), 401);
      expectErrorBody(await call("cardsim_pat_not-a-real-token"), 401);
      const malformed = await hub.request(endpoint.method, url, {
        as: null,
        headers: { authorization: "Basic abc" },
      });
      expectErrorBody(malformed, 401);

      let counted = 0;
      const projectRoute = endpoint.access !== "account" && endpoint.access !== "staff";
      if (projectRoute) {
        // Another project's member sees nothing here; an unknown project is not found.
        expectErrorBody(await call("outsider"), 403);
        counted++;
        if (url.startsWith("/v1/projects/")) {
          const unknown = url.replace(hub.projectUid, "app:00000000-0000-4000-8000-000000000000");
          expectErrorBody(await call("owner", unknown), 404);
        }
      }
      if (endpoint.path.includes("{ORG}") && endpoint.method === "GET") {
        expectErrorBody(await call("outsider"), 403);
      }
      const lower = LOWER[endpoint.access];
      if (lower) {
        expectErrorBody(await call(lower), 403);
        counted++;
      }

      const allowedAs = projectRoute ? endpoint.access : "owner";
      const ok = await call(allowedAs);
      expect(ok.status, `${endpoint.method} ${url} as ${allowedAs}: ${ok.text}`).toBeGreaterThanOrEqual(200);
      expect(ok.status).toBeLessThan(300);
      counted++;

      // The caller's billing account allows 4 a minute: the next ones are refused with Retry-After.
      let limited;
      for (let i = counted; i <= 4; i++) limited = await call(allowedAs);
      expectErrorBody(limited!, 429);
      const retryAfter = Number(limited!.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      await hub.clock.advance(retryAfter * 1000);
      expect((await call(allowedAs)).status).not.toBe(429);
    });
  },
);
