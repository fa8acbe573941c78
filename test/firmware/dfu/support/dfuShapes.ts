import { expect } from "vitest";

/**
 * The replies of dfu.status, dfu.get and card.dfu checked (as the world requests' test does)
 * against our compact description of each reply, written from the public request schemas (member
 * names, JSON types, enums, closed objects).
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

/** Asserts a successful reply has its request's shape; returns it. */
export function expectShape<T extends Record<string, unknown>>(request: string, reply: T): T {
  const context = `${request} -> ${JSON.stringify(reply)}`;
  expect(shapeProblems(request, reply), context).toEqual([]);
  return reply;
}
