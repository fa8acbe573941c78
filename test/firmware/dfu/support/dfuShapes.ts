import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";

/**
 * The replies of dfu.status, dfu.get and card.dfu checked two ways (as the world requests' test
 * does): always against our compact description of each reply, written from the public request
 * schemas (member names, JSON types, enums, closed objects); and, when NOTECARD_SCHEMA_DIR names a
 * checkout of github.com/blues/notecard-schema (never committed here), against its response
 * schema with ajv.
 */
type JsonType = "integer" | "number" | "string" | "boolean" | "object";
interface Shape {
  readonly fields: Readonly<Record<string, JsonType | readonly string[]>>;
  readonly required?: readonly string[];
  readonly closed?: boolean;
}

export const DFU_MODES = ["idle", "error", "downloading", "ready", "outboard-ready", "completed"];

const SHAPES: Record<string, Shape> = {
  // The schema requires `on`; the module leaves false members out, so a module whose downloads
  // are off answers `off:true` without `on` (docs/dfu.md).
  "dfu.status": {
    fields: {
      body: "object",
      mode: DFU_MODES,
      off: "boolean",
      on: "boolean",
      pending: "boolean",
      status: "string",
    },
    required: ["mode"],
    closed: true,
  },
  "dfu.get": {
    fields: { cobs: "integer", length: "integer", payload: "string", status: "string" },
    closed: true,
  },
  "card.dfu": { fields: { name: ["", "esp32", "stm32", "stm32-bi", "mcuboot"] }, closed: true },
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

export function shapeProblems(request: string, reply: Record<string, unknown>): string[] {
  const shape = SHAPES[request];
  if (!shape) return [`no shape for ${request}`];
  if (reply["err"] !== undefined) return [`error reply: ${String(reply["err"])}`];
  const problems: string[] = [];
  for (const name of shape.required ?? []) if (!(name in reply)) problems.push(`${name} is required`);
  if (request === "dfu.status" && !("on" in reply) && reply["off"] !== true)
    problems.push("on or off is required");
  for (const [name, value] of Object.entries(reply)) {
    const expected = shape.fields[name];
    if (expected === undefined) {
      if (shape.closed) problems.push(`${name} is not a member of the reply`);
      continue;
    }
    if (Array.isArray(expected)) {
      if (!expected.includes(value as string)) problems.push(`${name} ${String(value)} not in enum`);
    } else if (!(typeOf(value) === expected || (expected === "number" && typeOf(value) === "integer")))
      problems.push(`${name} is ${typeOf(value)}, not ${String(expected)}`);
  }
  return problems;
}

const SCHEMA_DIR = process.env["NOTECARD_SCHEMA_DIR"];
export const SCHEMAS_PRESENT =
  SCHEMA_DIR !== undefined && existsSync(join(SCHEMA_DIR, "dfu.status.rsp.notecard.api.json"));
let loaded: Ajv2020 | undefined;

/** The public schema's complaints about a reply (undefined when valid, or when no schemas are here). */
export function schemaProblems(request: string, reply: Record<string, unknown>): string | undefined {
  if (!SCHEMAS_PRESENT) return undefined;
  // Documented deviation: downloads off answer off:true without the schema's required on.
  if (request === "dfu.status" && reply["off"] === true) return undefined;
  if (!loaded) {
    loaded = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    for (const file of readdirSync(SCHEMA_DIR!).filter((f) => f.endsWith(".notecard.api.json")))
      loaded.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR!, file), "utf8")) as object);
  }
  const validate = loaded.getSchema(
    `https://raw.githubusercontent.com/blues/notecard-schema/master/${request}.rsp.notecard.api.json`,
  );
  if (!validate) return undefined;
  return validate(reply) ? undefined : loaded.errorsText(validate.errors);
}

/** Asserts a successful reply has its request's shape; returns it. */
export function expectShape<T extends Record<string, unknown>>(request: string, reply: T): T {
  const context = `${request} -> ${JSON.stringify(reply)}`;
  expect(shapeProblems(request, reply), context).toEqual([]);
  expect(schemaProblems(request, reply), context).toBeUndefined();
  return reply;
}
