import { afterAll, describe, expect, it } from "vitest";
import { ENDPOINTS, type Endpoint } from "./support/endpoints.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";
import { seedForEndpoints } from "./support/seedForEndpoints.js";

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

    it("answers 401 without a token or with a bad one, 403 to a caller without the role (not counted), 404 for an unknown project, 429 past the rate limit", async () => {
      const hub = await TestHub.start({ rateLimits: { perMinute: 4, perDay: 1000 } });
      hubs.push(hub);
      const values = await seedForEndpoints(hub);
      const url = fill(endpoint.path, values);
      const body = fillBody(endpoint.body, values);
      // A PIN route takes the device's PIN (or a wrong one) in X-Auth-Token in place of a token.
      const pinRoute = endpoint.access === "pin";
      const credentials = (as: string | null): { as: string | null; headers?: Record<string, string> } =>
        pinRoute
          ? { as: null, headers: as === null ? {} : { "x-auth-token": as === "pin" ? values.PIN! : as } }
          : { as };
      const call = (as: string | null, target = url) =>
        hub.request(endpoint.method, target, {
          ...credentials(as),
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
      const projectRoute = !["account", "staff", "pin"].includes(endpoint.access);
      if (projectRoute) {
        // Another project's member sees nothing here; an unknown project is not found. Neither
        // refusal counts against the project's limit.
        expectErrorBody(await call("outsider"), 403);
        if (url.startsWith("/v1/projects/")) {
          const unknown = url
            .replace(values.SPAREP!, hub.projectUid)
            .replace(hub.projectUid, "app:00000000-0000-4000-8000-000000000000");
          expectErrorBody(await call("owner", unknown), 404);
        }
      }
      if (endpoint.path.includes("{ORG}") && endpoint.method === "GET") {
        expectErrorBody(await call("outsider"), 403);
      }
      const lower = LOWER[endpoint.access];
      if (lower) {
        // Refused for its role: not counted either.
        for (let i = 0; i < 6; i++) expectErrorBody(await call(lower), 403);
      }

      const allowedAs = projectRoute || pinRoute ? endpoint.access : "owner";
      const ok = await call(allowedAs);
      expect(ok.status, `${endpoint.method} ${url} as ${allowedAs}: ${ok.text}`).toBeGreaterThanOrEqual(200);
      expect(ok.status).toBeLessThan(300);
      counted++;
      if (endpoint.once) return;

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
