import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BodySchema } from "../../hub/api/bodySchema.js";
import * as bodies from "../../hub/api/requestBodies.js";
import { ROUTE_BODY } from "../../hub/api/routeBody.js";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";
import { seedForEndpoints } from "./support/seedForEndpoints.js";

/**
 * Every operation whose body the hub checks against a schema (hub/api/requestBodies.ts,
 * routeBody.ts), sent a body with one field (at any depth) of a JSON type its schema does not
 * take, among unknown members: the answer is a 400 in the API's error shape, naming a field of
 * the body, whatever the value; never a 500, never accepted.
 */

type Node = Record<string, unknown>;

/** Each operation, its path filled from the seeded project (`{X}` placeholders). */
const OPERATIONS: [string, string, BodySchema<unknown>][] = [
  ["POST", "/v1/projects", bodies.CREATE_PROJECT],
  ["POST", "/v1/projects/{P}/products", bodies.CREATE_PRODUCT],
  ["POST", "/v1/projects/{P}/fleets", bodies.CREATE_FLEET],
  ["PUT", "/v1/projects/{P}/fleets/{F}", bodies.UPDATE_FLEET],
  ["POST", "/v1/projects/{P}/devices/dev:123456/provision", bodies.PROVISION_DEVICE],
  ["PUT", "/v1/projects/{P}/devices/{D}/fleets", bodies.DEVICE_FLEETS],
  ["DELETE", "/v1/projects/{P}/devices/{D}/fleets", bodies.DEVICE_FLEETS],
  ["PUT", "/v1/projects/{P}/devices/{D}/public-key", bodies.DEVICE_PUBLIC_KEY],
  ["POST", "/v1/projects/{P}/devices/{D}/signal", bodies.SIGNAL_DEVICE],
  ["POST", "/v1/projects/{P}/dfu/host/update", bodies.DFU_ACTION],
  ["POST", "/v1/projects/{P}/devices/{D}/notes/data.qi", bodies.NOTE_INPUT],
  ["POST", "/v1/projects/{P}/devices/{D}/notes/config.db/fresh", bodies.NOTE_INPUT],
  ["PUT", "/v1/projects/{P}/devices/{D}/notes/config.db/setting", bodies.NOTE_INPUT],
  ["DELETE", "/v1/projects/{P}/devices/{D}/files", bodies.DELETE_NOTEFILES],
  ["PUT", "/v1/projects/{P}/environment_variables", bodies.ENVIRONMENT_VARIABLES],
  ["PUT", "/v1/projects/{P}/fleets/{F}/environment_variables", bodies.ENVIRONMENT_VARIABLES],
  ["PUT", "/v1/projects/{P}/devices/{D}/environment_variables", bodies.ENVIRONMENT_VARIABLES],
  ["POST", "/v1/projects/{P}/firmware/host/app.bin", bodies.UPDATE_FIRMWARE],
  ["POST", "/v1/products/{PR}/devices/{D}/webhook-event", bodies.WEBHOOK_EVENT],
  ["POST", "/v1/projects/{P}/routes", ROUTE_BODY],
  ["PUT", "/v1/projects/{P}/routes/{R}", ROUTE_BODY],
];

/** Every field of a schema that states its types, as a path of member names. */
function slots(node: Node, path: string[] = []): { path: string[]; types: string[] }[] {
  const out: { path: string[]; types: string[] }[] = [];
  for (const [name, field] of Object.entries((node.properties ?? {}) as Record<string, Node>)) {
    if (field.type === undefined) continue;
    const types = (Array.isArray(field.type) ? field.type : [field.type]) as string[];
    out.push({ path: [...path, name], types }, ...slots(field, [...path, name]));
  }
  return out;
}

/** JSON values of the types a field does not take (null aside: it counts as absent). */
function wrongFor(types: string[]): fc.Arbitrary<unknown> {
  const takes = (t: string): boolean => types.includes(t);
  const kinds: fc.Arbitrary<unknown>[] = [];
  if (!takes("string")) kinds.push(fc.string());
  if (!takes("integer") && !takes("number")) kinds.push(fc.integer());
  if (!takes("number")) {
    kinds.push(fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }));
  }
  if (!takes("boolean")) kinds.push(fc.boolean());
  if (!takes("array")) kinds.push(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));
  if (!takes("object")) kinds.push(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }));
  return fc.oneof(...kinds);
}

/** A body: unknown members, and one field of the schema set to a value of a type it refuses. */
function wrongBody(schema: Node): fc.Arbitrary<Node> {
  const unknown = fc.dictionary(
    fc.string().map((k) => `x_${k}`),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  );
  return fc.constantFrom(...slots(schema)).chain(({ path, types }) =>
    fc.tuple(unknown, wrongFor(types)).map(([extra, wrong]) => {
      let value: unknown = wrong;
      for (const name of [...path].reverse()) value = { [name]: value };
      return { ...extra, ...(value as Node) };
    }),
  );
}

describe("a body field of the wrong type", () => {
  let hub: TestHub;
  let values: Record<string, string>;

  beforeAll(async () => {
    hub = await TestHub.start();
    values = await seedForEndpoints(hub);
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("is refused with a 400 in the API's error shape that names a field, on every body-checked operation", async () => {
    const requests = fc
      .constantFrom(...OPERATIONS)
      .chain(([method, path, schema]) =>
        wrongBody(schema.schema).map((body) => ({ method, path, schema, body })),
      );
    await fc.assert(
      fc.asyncProperty(requests, async ({ method, path, schema, body }) => {
        const url = path.replace(/\{([A-Z]+)\}/g, (_, k: string) => values[k]!);
        const res = await hub.request(method, url, { as: "owner", body });
        const what = `${method} ${url} ${JSON.stringify(body).slice(0, 200)}: ${res.text}`;
        expect(() => expectErrorBody(res, 400), what).not.toThrow();
        const fields = Object.keys((schema.schema as Node).properties as Node);
        expect(
          fields.some((f) => (res.json.err as string).startsWith(f)),
          what,
        ).toBe(true);
      }),
      { numRuns: 200, seed: 23 },
    );
  });
});
