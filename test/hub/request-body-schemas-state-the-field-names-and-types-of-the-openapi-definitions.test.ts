import { describe, expect, it } from "vitest";
import type { BodySchema, SchemaNode } from "../../hub/api/bodySchema.js";
import * as bodies from "../../hub/api/requestBodies.js";
import * as automation from "../../hub/api/automationBodies.js";
import { ROUTE_BODY } from "../../hub/api/routeBody.js";
import { CREATE_SECRET, UPDATE_SECRET } from "../../hub/api/secretRoutes.js";
import { WEBHOOK_SETTINGS } from "../../hub/api/webhookRoutes.js";
import { CONTRACT_SKIP_MESSAGE, OpenApiContract } from "./support/OpenApiContract.js";

/**
 * The hub checks request bodies against schemas of its own (hub/api/requestBodies.ts,
 * routeBody.ts). Each is compared here, field by field, with the request schema of the same
 * operation in the OpenAPI definitions (../shared; the current one and the older client's): every
 * field a definition names is one of ours and takes at least the definition's type, and every
 * field of ours is a definition's or one of our documented additions below.
 */
const contract = OpenApiContract.load();
if (!contract) console.warn(CONTRACT_SKIP_MESSAGE);

type Json = Record<string, unknown>;

const P = "/v1/projects/app:1";
/** WebhookSettings inside `settings`, as CreateWebhook's example sends them. */
const WRAPPED = ["settings", "settings.id", "settings.disabled", "settings.transform"];
const D = `${P}/devices/dev:1`;

/**
 * Each body-checked operation: a concrete request, our schema, what we add to the definition, and
 * what of the definition's we do not read (with why).
 */
const OPERATIONS: {
  method: string;
  path: string;
  ours: BodySchema<unknown>;
  added?: string[];
  unread?: string[];
}[] = [
  { method: "POST", path: "/auth/login", ours: bodies.LOGIN },
  { method: "POST", path: "/v1/projects", ours: bodies.CREATE_PROJECT },
  { method: "POST", path: `${P}/products`, ours: bodies.CREATE_PRODUCT },
  // The current CreateFleet has no watchdog_mins; UpdateFleet has it, and a fleet is created with it.
  { method: "POST", path: `${P}/fleets`, ours: bodies.CREATE_FLEET, added: ["watchdog_mins"] },
  { method: "PUT", path: `${P}/fleets/fleet:1`, ours: bodies.UPDATE_FLEET },
  // Ours: the public key the device must prove, pinned before it first connects.
  { method: "POST", path: `${D}/provision`, ours: bodies.PROVISION_DEVICE, added: ["public_key"] },
  { method: "PUT", path: `${D}/fleets`, ours: bodies.DEVICE_FLEETS },
  { method: "DELETE", path: `${D}/fleets`, ours: bodies.DEVICE_FLEETS },
  { method: "POST", path: `${D}/signal`, ours: bodies.SIGNAL_DEVICE },
  { method: "POST", path: `${P}/dfu/host/update`, ours: bodies.DFU_ACTION },
  { method: "POST", path: `${D}/notes/data.qi`, ours: bodies.NOTE_INPUT },
  { method: "POST", path: `${D}/notes/config.db/n1`, ours: bodies.NOTE_INPUT },
  { method: "PUT", path: `${D}/notes/config.db/n1`, ours: bodies.NOTE_INPUT },
  { method: "DELETE", path: `${D}/files`, ours: bodies.DELETE_NOTEFILES },
  { method: "PUT", path: `${P}/environment_variables`, ours: bodies.ENVIRONMENT_VARIABLES },
  { method: "PUT", path: `${P}/fleets/fleet:1/environment_variables`, ours: bodies.ENVIRONMENT_VARIABLES },
  { method: "PUT", path: `${D}/environment_variables`, ours: bodies.ENVIRONMENT_VARIABLES },
  {
    method: "PUT",
    path: "/v1/products/product:x/devices/dev:1/environment_variables_with_pin",
    ours: bodies.ENVIRONMENT_VARIABLES,
  },
  { method: "POST", path: `${P}/firmware/host/app.bin`, ours: bodies.UPDATE_FIRMWARE },
  {
    method: "POST",
    path: "/v1/products/product:com.example:x/devices/dev:1/webhook-event",
    ours: bodies.WEBHOOK_EVENT,
    // The definition's body is any Note-shaped object; these are the members the hub reads.
    added: ["file", "body", "payload", "when"],
  },
  // NotehubRoute is the answer's shape too: its uid and modified are the hub's to set.
  { method: "POST", path: `${P}/routes`, ours: ROUTE_BODY, unread: ["uid", "modified"] },
  { method: "PUT", path: `${P}/routes/route:1`, ours: ROUTE_BODY, unread: ["uid", "modified"] },
  // Monitor is the answer's shape too: uid, alert and last_routed_at are the hub's to set.
  {
    method: "POST",
    path: `${P}/monitors`,
    ours: automation.CREATE_MONITOR,
    unread: ["uid", "alert", "last_routed_at"],
  },
  {
    method: "PUT",
    path: `${P}/monitors/monitor:1`,
    ours: automation.UPDATE_MONITOR,
    unread: ["uid", "alert", "last_routed_at"],
  },
  { method: "POST", path: `${P}/jobs`, ours: automation.JOB_DEFINITION },
  // Webhooks and secrets (integrationRoutes.ts); CreateWebhook's example wraps the settings in `settings`.
  { method: "POST", path: `${P}/webhooks/w`, ours: WEBHOOK_SETTINGS, added: WRAPPED },
  { method: "PUT", path: `${P}/webhooks/w`, ours: WEBHOOK_SETTINGS, added: WRAPPED },
  {
    method: "PUT",
    path: "/v1/products/product:x/webhooks/w/settings",
    ours: WEBHOOK_SETTINGS,
    added: WRAPPED,
  },
  { method: "POST", path: `${P}/secrets`, ours: CREATE_SECRET },
  { method: "PUT", path: `${P}/secrets/K`, ours: UPDATE_SECRET },
];

/** The JSON types a node takes (null left out); undefined when it takes any value. */
function typesOf(node: Json): string[] | undefined {
  if (node.type === undefined) return undefined;
  return (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t !== "null") as string[];
}

/** Where `theirs` names a field or a type that `ours` does not take, a line saying so. */
function compare(ours: Json, theirs: Json, path: string, problems: string[]): void {
  const mine = typesOf(ours);
  const wanted = typesOf(theirs)?.[0];
  if (mine && wanted && !mine.includes(wanted) && !(wanted === "integer" && mine.includes("number"))) {
    problems.push(`${path || "body"}: the definition says ${wanted}, ours takes ${mine.join(" or ")}`);
    return;
  }
  const theirProps = (flat(theirs).properties ?? {}) as Record<string, Json>;
  const myProps = ours.properties as Record<string, Json> | undefined;
  for (const [name, schema] of Object.entries(theirProps)) {
    const field = path ? `${path}.${name}` : name;
    // An object of ours without named fields takes any members (a note's body).
    if (!myProps) continue;
    if (!myProps[name]) problems.push(`${field}: in the definition, not in ours`);
    else compare(myProps[name]!, schema, field, problems);
  }
  if (theirs.items && ours.items) compare(ours.items as Json, theirs.items as Json, `${path}[]`, problems);
  if (isObject(theirs.additionalProperties) && isObject(ours.additionalProperties)) {
    compare(ours.additionalProperties, theirs.additionalProperties, `${path}.*`, problems);
  }
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A schema with its `allOf` parts' fields gathered into its own (CreateMonitor: Monitor and what it requires). */
function flat(node: Json): Json {
  if (!Array.isArray(node.allOf)) return node;
  const properties: Record<string, Json> = { ...((node.properties ?? {}) as Record<string, Json>) };
  for (const part of node.allOf as Json[]) Object.assign(properties, flat(part).properties ?? {});
  return { ...node, properties };
}

/** Every field path of a schema (nested objects' fields as `a.b`). */
function fieldsOf(node: Json, path = ""): string[] {
  const out: string[] = [];
  for (const [name, schema] of Object.entries((flat(node).properties ?? {}) as Record<string, Json>)) {
    const field = path ? `${path}.${name}` : name;
    out.push(field, ...fieldsOf(schema, field));
  }
  return out;
}

describe.skipIf(!contract)("request body schemas against the OpenAPI definitions", () => {
  const c = contract!;

  it.each(OPERATIONS)(
    "$method $path: the same field names and types",
    ({ method, path, ours, added, unread }) => {
      const definitions = c.requestBodies(method, path);
      expect(definitions.length, `${method} ${path} has a JSON request body in a definition`).toBeGreaterThan(
        0,
      );
      const problems: string[] = [];
      for (const { spec, operationId, schema } of definitions) {
        const found: string[] = [];
        compare(ours.schema as Json, schema, "", found);
        const ignored = (unread ?? []).map((f) => `${f}: in the definition, not in ours`);
        problems.push(
          ...found.filter((p) => !ignored.includes(p)).map((p) => `${spec} ${operationId}: ${p}`),
        );
      }
      // Every field of ours is one some definition names, or an addition stated above.
      const defined = new Set(definitions.flatMap((d) => fieldsOf(d.schema)));
      const extra = fieldsOf(ours.schema as Json).filter(
        (f) => !defined.has(f) && !(added ?? []).includes(f),
      );
      for (const field of extra) problems.push(`${field}: ours, in no definition of ${method} ${path}`);
      expect(problems).toEqual([]);
    },
  );

  it("finds a disagreement: a type changed or a field dropped is reported", () => {
    const theirs = { type: "object", properties: { label: { type: "string" }, n: { type: "integer" } } };
    const problems: string[] = [];
    compare(
      { type: "object", properties: { label: { type: ["boolean", "null"] } } } satisfies SchemaNode,
      theirs,
      "",
      problems,
    );
    expect(problems).toEqual([
      "label: the definition says string, ours takes boolean",
      "n: in the definition, not in ours",
    ]);
  });
});
