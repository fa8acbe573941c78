import { Ajv, type ErrorObject } from "ajv";

/**
 * The JSON Schema of a fleet's workload file (docs/fleet.md shows an example of each feature).
 * Checked with Ajv; `describeSchemaError` turns Ajv's first complaint into one line that names the
 * field by its path (`groups[0].notefiles[1].every: ...`).
 */

const DURATION = {
  type: ["string", "number"],
  pattern: "^\\s*(\\d+(\\.\\d+)?|\\.\\d+)\\s*(ms|s|m|min|h|d)?\\s*$",
  description: "a time: a number with ms, s, m, h or d (a bare number is seconds)",
};

const FRACTION = { type: "number", minimum: 0, maximum: 1 };

const VOLTS = { type: "number", minimum: 0, maximum: 30 };

const NOTEFILE = {
  type: "object",
  additionalProperties: false,
  required: ["file", "every"],
  properties: {
    file: {
      type: "string",
      pattern: "^[A-Za-z0-9_.-]+\\.(qo|qos|db|dbs)$",
      description: "a notefile's name ending in .qo, .qos, .db or .dbs",
    },
    every: DURATION,
    body: { type: "object" },
    bytes: { type: "integer", minimum: 2, maximum: 8192 },
    template: { type: "object" },
    sync: { type: "boolean" },
  },
};

const ENVIRONMENT = {
  type: "object",
  additionalProperties: false,
  required: ["at", "vars"],
  properties: {
    at: DURATION,
    scope: { enum: ["project", "device"] },
    vars: { type: "object", additionalProperties: { type: "string" } },
  },
};

const DFU = {
  type: "object",
  additionalProperties: false,
  required: ["at", "bytes", "version"],
  properties: {
    at: DURATION,
    bytes: { type: "integer", minimum: 1, maximum: 8_388_608 },
    version: { type: "string", minLength: 1 },
    share: FRACTION,
  },
};

const OUTAGE = {
  type: "object",
  additionalProperties: false,
  required: ["kind", "at", "for"],
  properties: {
    kind: { enum: ["network", "hub"] },
    at: DURATION,
    for: DURATION,
    share: FRACTION,
  },
};

const LOCATION = {
  type: "object",
  additionalProperties: false,
  properties: {
    area: {
      type: "object",
      additionalProperties: false,
      required: ["lat", "lon", "radius_km"],
      properties: {
        lat: { type: "number", minimum: -90, maximum: 90 },
        lon: { type: "number", minimum: -180, maximum: 180 },
        radius_km: { type: "number", minimum: 0, maximum: 20_000 },
      },
    },
    track: { type: "string", minLength: 1 },
  },
};

const GROUP = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", pattern: "^[A-Za-z0-9_-]+$", description: "a name of letters, digits, _ and -" },
    share: { type: "number", exclusiveMinimum: 0 },
    variant: { type: "string", minLength: 1 },
    sync: {
      type: "object",
      additionalProperties: false,
      required: ["mode"],
      properties: {
        mode: { enum: ["periodic", "minimum", "continuous", "off"] },
        outbound: { type: "integer", minimum: 1 },
        inbound: { type: "integer", minimum: 1 },
      },
    },
    notefiles: { type: "array", items: NOTEFILE },
    environment: { type: "array", items: ENVIRONMENT },
    dfu: DFU,
    outages: { type: "array", items: OUTAGE },
    supply: {
      type: "object",
      additionalProperties: false,
      properties: { source: { enum: ["battery", "usb", "line"] }, volts: VOLTS },
    },
    discharge: { type: "string", pattern: "^linear:" },
    location: LOCATION,
  },
};

export const WORKLOAD_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["groups"],
  properties: {
    name: { type: "string" },
    seed: { type: ["string", "integer"] },
    groups: { type: "array", minItems: 1, items: GROUP },
  },
};

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true });
export const validateWorkload = ajv.compile(WORKLOAD_SCHEMA);

/** `/groups/0/notefiles/1/every` as `groups[0].notefiles[1].every`. */
export function fieldPath(pointer: string): string {
  let out = "";
  for (const part of pointer.split("/").slice(1)) {
    const name = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(name) ? `[${name}]` : out === "" ? name : `.${name}`;
  }
  return out === "" ? "the workload" : out;
}

/** One line for Ajv's complaint, naming the field and what it should be. */
export function describeSchemaError(error: ErrorObject): string {
  const at = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const schema = error.parentSchema as { description?: string; pattern?: string } | undefined;
  switch (error.keyword) {
    case "required":
      return `${at === "the workload" ? "" : `${at}.`}${String(params["missingProperty"])}: is required`;
    case "additionalProperties":
      return `${at}: unknown field "${String(params["additionalProperty"])}"`;
    case "enum":
      return `${at}: must be one of ${(params["allowedValues"] as unknown[]).map(String).join(", ")}`;
    case "pattern":
      if (schema?.description) return `${at}: must be ${schema.description}`;
      if (schema?.pattern === "^linear:")
        return `${at}: must be linear:FROM-TO/DURATION, e.g. linear:4.2-3.3/30d`;
      return `${at}: must match ${String(params["pattern"])}`;
    case "type":
      return `${at}: must be ${schema?.description ?? `a ${String(params["type"]).replace(",", " or a ")}`}`;
    default:
      return `${at}: ${error.message ?? "is not valid"}`;
  }
}
