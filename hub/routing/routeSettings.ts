import { isJsonObject, type JsonObject } from "../../core/json.js";
import { ServiceError } from "../ServiceError.js";
import { boolOf, filter, intOf, invalid, transform, uri } from "./routeFieldReaders.js";

export { FILTER_TYPES, TRANSFORM_FORMATS } from "./routeFieldReaders.js";

/**
 * What a route is made of, per the current OpenAPI's `NotehubRoute`: a type, and the settings
 * object of that type's schema (`http`, `mqtt`, `aws`, ...), each schema with its own fields.
 * The older definition (client 1.0.27-beta.5) sends `route_type` and `schema` instead; both are
 * read here, the current shape is the one stored and answered. The types of every field are
 * checked before a body comes here, by the API's schema (hub/api/routeBody.ts, built from
 * ROUTE_SCHEMAS); here the values are normalised and checked against each other.
 */

export type FieldKind =
  "string" | "uri" | "integer" | "boolean" | "strings" | "headers" | "filter" | "transform";

const COMMON = {
  filter: "filter",
  fleets: "strings",
  throttle_ms: "integer",
  timeout: "integer",
  transform: "transform",
} as const satisfies Record<string, FieldKind>;

/** The fields of each schema (the current definition's, every one `additionalProperties: false`). */
export const ROUTE_SCHEMAS: Record<string, Record<string, FieldKind>> = {
  http: { ...COMMON, url: "uri", http_headers: "headers", disable_http_headers: "boolean" },
  proxy: {
    fleets: "strings",
    timeout: "integer",
    transform: "transform",
    url: "uri",
    alias: "string",
    http_headers: "headers",
  },
  mqtt: {
    ...COMMON,
    broker: "string",
    port: "string",
    topic: "string",
    client_id: "string",
    username: "string",
    password: "string",
    certificate: "string",
    certificate_name: "string",
    key: "string",
    private_key_name: "string",
  },
  aws: {
    ...COMMON,
    url: "uri",
    http_headers: "headers",
    disable_http_headers: "boolean",
    access_key_id: "string",
    access_key_secret: "string",
    channel: "string",
    message_deduplication_id: "string",
    message_group_id: "string",
    region: "string",
    role_arn: "string",
  },
  azure: {
    ...COMMON,
    url: "uri",
    functions_key_secret: "string",
    sas_policy_key: "string",
    sas_policy_name: "string",
  },
  blynk: { ...COMMON, region: "string" },
  datacake: { ...COMMON, url: "uri", http_headers: "headers", disable_http_headers: "boolean" },
  google: { ...COMMON, url: "uri", token: "string" },
  qubitro: { ...COMMON, project_id: "string", webhook_signing_key: "string" },
  radnote: {
    fleets: "strings",
    throttle_ms: "integer",
    client_id: "string",
    client_secret: "string",
    data_feed_key: "string",
    event_id: "integer",
    test_api: "boolean",
  },
  s3archive: {
    ...COMMON,
    url: "uri",
    archive_count_exceeds: "integer",
    archive_every_mins: "integer",
    archive_id: "string",
    bucket_endpoint: "string",
    bucket_name: "string",
    bucket_region: "string",
    file_access: "string",
    file_folder: "string",
    file_format: "string",
    key_id: "string",
    key_secret: "string",
  },
  slack: {
    ...COMMON,
    webhook_url: "uri",
    bearer: "string",
    blocks: "string",
    channel: "string",
    text: "string",
  },
  snowflake: {
    filter: "filter",
    fleets: "strings",
    timeout: "integer",
    transform: "transform",
    account_name: "string",
    organization_name: "string",
    pem: "string",
    private_key_name: "string",
    user_name: "string",
  },
  snowpipe_streaming: {
    filter: "filter",
    fleets: "strings",
    timeout: "integer",
    transform: "transform",
    account_name: "string",
    database_name: "string",
    organization_name: "string",
    pem: "string",
    pipe_name: "string",
    private_key_name: "string",
    schema_name: "string",
    user_name: "string",
  },
  thingworx: { ...COMMON, url: "uri", app_key: "string" },
  twilio: {
    filter: "filter",
    fleets: "strings",
    throttle_ms: "integer",
    timeout: "integer",
    account_sid: "string",
    auth_token: "string",
    from: "string",
    to: "string",
    message: "string",
  },
};

/**
 * Route types and the schema holding their settings: the older definition's `route_type` names,
 * and for the schemas it did not know, the schema's own name.
 */
export const ROUTE_TYPES: Record<string, string> = {
  http: "http",
  proxy: "proxy",
  mqtt: "mqtt",
  "aws-iot-analytics": "aws",
  "aws-lambda": "aws",
  "aws-lambda-with-access-key": "aws",
  "aws-sqs": "aws",
  "aws-sqs-fifo": "aws",
  "aws-sqs-fifo-with-access-key": "aws",
  "aws-sqs-with-access-key": "aws",
  "azure-function": "azure",
  "azure-function-with-key": "azure",
  "azure-service-bus-with-sas-token": "azure",
  "google-function": "google",
  "radnote-radresp-fixed-survey": "radnote",
  "radnote-radresp-mobile-survey": "radnote",
  "slack-bearer": "slack",
  "slack-webhook": "slack",
  snowflake: "snowflake",
  snowpipe_streaming: "snowpipe_streaming",
  thingworx: "thingworx",
  twilio: "twilio",
  s3archive: "s3archive",
  datacake: "datacake",
  qubitro: "qubitro",
  blynk: "blynk",
};

/** The older definition's name of the RadNote schema. */
const SCHEMA_ALIASES: Record<string, string> = { radresponder: "radnote" };

/** Types whose deliveries this simulator makes; every other type is stored, and refused at delivery. */
export const DELIVERED_TYPES = new Set(["http", "proxy", "mqtt"]);

/** Secrets: answered as this placeholder, which a later update may send back to keep the value. */
export const SECRET_PLACEHOLDER = "********";
const SECRET_FIELDS = new Set([
  "password",
  "certificate",
  "key",
  "access_key_secret",
  "functions_key_secret",
  "sas_policy_key",
  "token",
  "webhook_signing_key",
  "client_secret",
  "key_secret",
  "bearer",
  "pem",
  "app_key",
  "auth_token",
]);

/** A route as the API defines it, before it has a UID or times. */
export interface RouteDefinition {
  label: string;
  type: string;
  schema: string;
  disabled: boolean;
  notes: string | null;
  settings: JsonObject;
}

/**
 * The settings of `schema` read from `given` (its types checked by the schema), over `previous`
 * (an update changes only the fields it names). Unknown fields are dropped, as the hosted service
 * ignores them; a secret sent back as its placeholder keeps its stored value.
 */
function readSettings(schema: string, given: JsonObject, previous: JsonObject | undefined): JsonObject {
  const fields = ROUTE_SCHEMAS[schema]!;
  const out: JsonObject = { ...(previous ?? {}) };
  for (const [name, kind] of Object.entries(fields)) {
    const value = given[name];
    if (value === undefined) continue;
    if (value === null) {
      delete out[name];
      continue;
    }
    if (SECRET_FIELDS.has(name) && value === SECRET_PLACEHOLDER && previous?.[name] !== undefined) continue;
    const before = previous?.[name] as JsonObject | undefined;
    const read: Partial<Record<FieldKind, () => JsonObject[string]>> = {
      // The older definition has the MQTT port as an integer; it is stored as the current text.
      string: () => String(value),
      uri: () => uri(value as string, `${schema}.${name}`),
      integer: () => intOf(value),
      boolean: () => boolOf(value),
      filter: () => filter(value as JsonObject, before),
      transform: () => transform(value as JsonObject, before),
    };
    out[name] = read[kind]?.() ?? value;
  }
  return out;
}

/** What every route of a schema shows even when never set (the hosted service's defaults). */
function withDefaults(schema: string, settings: JsonObject): JsonObject {
  const fields = ROUTE_SCHEMAS[schema]!;
  const out: JsonObject = { ...settings };
  if (fields.fleets && out.fleets === undefined) out.fleets = [];
  if (fields.filter && out.filter === undefined) out.filter = { type: "", system_notefiles: false };
  if (fields.transform && out.transform === undefined) out.transform = {};
  if (fields.throttle_ms && out.throttle_ms === undefined) out.throttle_ms = 0;
  if (fields.timeout && out.timeout === undefined) out.timeout = 0;
  if (fields.disable_http_headers && out.disable_http_headers === undefined) out.disable_http_headers = false;
  return out;
}

/** Which settings member (and type) a body names: the current shape or the older one. */
function settingsOf(body: JsonObject): { schema: string; given: JsonObject } | undefined {
  const named = Object.keys(ROUTE_SCHEMAS).filter((key) => body[key] !== undefined && body[key] !== null);
  if (named.length > 1) {
    throw new ServiceError(
      "invalid",
      named.join(","),
      `a route has one settings object; got ${named.join(", ")}`,
    );
  }
  if (named.length === 1) {
    const schema = named[0]!;
    return { schema, given: body[schema] as JsonObject };
  }
  return isJsonObject(body.schema) ? { schema: "", given: body.schema } : undefined;
}

function typeOf(body: JsonObject): string | undefined {
  const type = body.type ?? null;
  const older = body.route_type ?? null;
  if (type !== null && older !== null && type !== older) {
    throw invalid("type", "and route_type name different types");
  }
  return (type ?? older ?? undefined) as string | undefined;
}

function common(
  body: JsonObject,
  previous?: RouteDefinition,
): Omit<RouteDefinition, "type" | "schema" | "settings"> {
  const label = (body.label ?? previous?.label ?? "") as string;
  const notes = body.notes === undefined ? (previous?.notes ?? null) : (body.notes as string | null);
  const disabled =
    body.disabled === undefined || body.disabled === null
      ? (previous?.disabled ?? false)
      : boolOf(body.disabled);
  return { label, notes, disabled };
}

/** What a delivered type cannot work without. */
function checkComplete(type: string, schema: string, settings: JsonObject): void {
  if (type === "http" && !settings.url) throw invalid(`${schema}.url`, "is required for an http route");
  if (type === "http" && !/^https?:/i.test(String(settings.url))) {
    throw invalid(`${schema}.url`, "must be an http or https URL");
  }
  if (type === "proxy") {
    if (!settings.url) throw invalid("proxy.url", "is required for a proxy route");
    if (!/^https?:/i.test(String(settings.url))) throw invalid("proxy.url", "must be an http or https URL");
    if (!settings.alias) throw invalid("proxy.alias", "is required for a proxy route");
  }
  if (type === "mqtt") {
    if (!settings.broker) throw invalid("mqtt.broker", "is required for an mqtt route");
    if (!settings.topic) throw invalid("mqtt.topic", "is required for an mqtt route");
  }
}

/** A new route from a Create Route body (either definition's shape). */
export function routeFromBody(body: JsonObject): RouteDefinition {
  const found = settingsOf(body);
  let type = typeOf(body);
  if (!found && !type) throw invalid("type", "is required (or a settings object such as http)");
  let schema = found?.schema || (type ? ROUTE_TYPES[type]! : "");
  schema = SCHEMA_ALIASES[schema] ?? schema;
  if (type && ROUTE_TYPES[type] !== schema) {
    throw invalid(schema, `does not hold the settings of a route of type ${type} (${ROUTE_TYPES[type]})`);
  }
  if (!type) {
    // Without a type, a schema that is a type of its own names it (`{"http": {...}}`).
    if (ROUTE_TYPES[schema] !== schema) throw invalid("type", `is required for ${schema} settings`);
    type = schema;
  }
  const settings = withDefaults(schema, readSettings(schema, found?.given ?? {}, undefined));
  checkComplete(type, schema, settings);
  return { ...common(body), type, schema, settings };
}

/** A route changed by an Update Route body: only what the body names changes. */
export function routeWithChanges(current: RouteDefinition, body: JsonObject): RouteDefinition {
  const type = typeOf(body);
  if (type !== undefined && type !== current.type) {
    throw invalid("type", `cannot change (the route is of type ${current.type}); create a new route`);
  }
  const found = settingsOf(body);
  let settings = current.settings;
  if (found) {
    const schema = SCHEMA_ALIASES[found.schema] ?? found.schema;
    if (schema !== "" && schema !== current.schema) {
      throw invalid(schema, `does not hold the settings of this route (${current.schema})`);
    }
    settings = withDefaults(current.schema, readSettings(current.schema, found.given, current.settings));
  }
  checkComplete(current.type, current.schema, settings);
  return { ...common(body, current), type: current.type, schema: current.schema, settings };
}

/** The settings as answered: secrets replaced by the placeholder. */
export function maskedSettings(settings: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(settings)) {
    out[name] =
      SECRET_FIELDS.has(name) && typeof value === "string" && value !== "" ? SECRET_PLACEHOLDER : value;
  }
  return out;
}
