import { isJsonObject, type JsonObject } from "../../core/json.js";
import {
  FILTER_TYPES,
  ROUTE_SCHEMAS,
  ROUTE_TYPES,
  TRANSFORM_FORMATS,
  type FieldKind,
} from "../routing/routeSettings.js";
import { BodySchema, refusal, type SchemaNode } from "./bodySchema.js";

/**
 * The schema of a Create Route and Update Route body (the current definition's NotehubRoute, and
 * the older client's `route_type` and `schema`), built from the table of each settings schema's
 * fields (routeSettings.ts). What the types allow beyond the definitions is the hosted service's
 * leniency: `disabled` and the booleans as the texts "true"/"false", integers as digit texts, the
 * MQTT port as a number (the older definition's type).
 */

const NON_NEGATIVE = "must be a non-negative integer";
const TRUE_OR_FALSE = "must be true or false";
const STRINGS = "must be an array of strings";

const string = (says: Record<string, string> = {}): SchemaNode => ({
  type: ["string", "null"],
  says: { type: "must be a string", ...says },
});

const boolean = (): SchemaNode => ({
  type: ["boolean", "string", "null"],
  enum: [true, false, "true", "false", null],
  says: { type: TRUE_OR_FALSE, enum: TRUE_OR_FALSE },
});

const nonNegative = (): SchemaNode => ({
  type: ["integer", "string", "null"],
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  pattern: "^\\d{1,15}$",
  says: { type: NON_NEGATIVE, minimum: NON_NEGATIVE, maximum: NON_NEGATIVE, pattern: NON_NEGATIVE },
});

const strings = (): SchemaNode => ({
  type: ["array", "null"],
  items: { type: "string", says: { atParent: STRINGS } },
  maxItems: 1000,
  says: { type: STRINGS, maxItems: "may hold at most 1000 entries" },
});

const headers = (): SchemaNode => ({
  type: ["object", "null"],
  propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", says: { pattern: "is not a header name" } },
  additionalProperties: {
    type: "string",
    pattern: "^[^\\r\\n\\u0000]*$",
    says: { type: "must be a string without line breaks", pattern: "must be a string without line breaks" },
  },
  says: { type: "must be an object of header names to strings" },
});

const filter = (): SchemaNode => ({
  type: ["object", "null"],
  properties: {
    type: { ...string({ enum: "must be one of all, include, exclude" }), enum: [...FILTER_TYPES, null] },
    system_notefiles: boolean(),
    files: strings(),
  },
  says: { type: "must be an object" },
});

function transform(): SchemaNode {
  const jsonata = string({ maxLength: "may be at most 65536 characters" });
  jsonata.maxLength = 65_536;
  const format = string({
    enum: "must be one of jsonata, flatten, simple, body, payload, bridge or empty",
  });
  format.enum = [...TRANSFORM_FORMATS, null];
  return {
    type: ["object", "null"],
    properties: { format, jsonata, jsonata_in: jsonata },
    says: { type: "must be an object" },
  };
}

/** The MQTT port: a string (the current definition) or a non-negative integer (the older one). */
const port = (): SchemaNode => ({
  type: ["string", "integer", "null"],
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  says: { type: "must be a string", minimum: NON_NEGATIVE, maximum: NON_NEGATIVE },
});

function fieldSchema(name: string, kind: FieldKind): SchemaNode {
  switch (kind) {
    case "string":
    case "uri":
      // The older definition has the MQTT port as an integer; the current one as a string.
      return name === "port" ? port() : string();
    case "integer":
      return nonNegative();
    case "boolean":
      return boolean();
    case "strings":
      return strings();
    case "headers":
      return headers();
    case "filter":
      return filter();
    case "transform":
      return transform();
  }
}

/** The settings object of one schema (`http`, `mqtt`, ...). */
function settingsSchema(schema: string): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  for (const [name, kind] of Object.entries(ROUTE_SCHEMAS[schema]!))
    properties[name] = fieldSchema(name, kind);
  return { type: ["object", "null"], properties, says: { type: "must be an object" } };
}

function routeSchema(): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  for (const schema of Object.keys(ROUTE_SCHEMAS)) properties[schema] = settingsSchema(schema);
  properties.schema = { type: ["object", "null"], says: { type: "must be an object" } };
  const types = [...Object.keys(ROUTE_TYPES), null];
  const oneOf = `must be one of ${Object.keys(ROUTE_TYPES).join(", ")}`;
  properties.type = { ...string({ enum: oneOf }), enum: types };
  properties.route_type = { ...string({ enum: oneOf, field: "type" }), enum: types };
  properties.label = { ...string({ maxLength: "may be at most 200 characters" }), maxLength: 200 };
  properties.notes = { ...string({ maxLength: "may be at most 1024 characters" }), maxLength: 1024 };
  properties.disabled = boolean();
  return { type: "object", properties };
}

/** Create Route and Update Route bodies (nulls kept: a null setting clears the field). */
export const ROUTE_BODY = new BodySchema<JsonObject>(routeSchema(), { keepNulls: true });

/** Each settings schema on its own, for the older shape's `schema` member. */
const SETTINGS = new Map(
  Object.keys(ROUTE_SCHEMAS).map((name) => [name, new BodySchema<JsonObject>(settingsSchema(name))]),
);

/**
 * The older shape's `schema` object checked as the settings of `settingsOf` (the stored route's
 * schema on an update; on a create, the one its type names).
 */
export function checkOlderSettings(body: JsonObject, settingsOf?: string): void {
  if (!isJsonObject(body.schema)) return;
  const type = body.type ?? body.route_type;
  const name = settingsOf ?? (typeof type === "string" ? ROUTE_TYPES[type] : undefined);
  const settings = name !== undefined ? SETTINGS.get(name) : undefined;
  const error = settings?.check(body.schema);
  if (error) throw refusal({ ...error, instancePath: `/${name}${error.instancePath}` });
}

/** A Create Route body checked, the older shape's settings included. */
export function checkedRouteBody(body: unknown): JsonObject {
  const checked = ROUTE_BODY.read(body);
  checkOlderSettings(checked);
  return checked;
}
