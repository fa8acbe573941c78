import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { JsonObject } from "../../core/json.js";
import * as errors from "../errors.js";
import type { HttpError } from "../HttpError.js";

/**
 * Request bodies checked against JSON Schemas (Ajv), refused in the hub's own words. Every schema
 * node may carry `says`: the text (after the field's dotted path) answered when that node's
 * keyword fails, e.g. `{type: "must be a string"}` gives `label must be a string`. `says.null`
 * is the text for a null where the node allows none (a required field: `is required`);
 * `says.field` answers under another field's name; `says.atParent` answers at the enclosing
 * field (an array of strings with one number in it: `fleets must be an array of strings`).
 */

/** A JSON Schema node as written here. */
export type SchemaNode = Record<string, unknown>;

type Says = Partial<Record<string, string>> & { field?: string; atParent?: string };

const ajv = new Ajv({
  allErrors: false,
  verbose: true,
  coerceTypes: false,
  useDefaults: false,
  allowUnionTypes: true,
  strict: true,
});
ajv.addKeyword({ keyword: "says", schemaType: "object" });

/** A field's schema, with the TypeScript type of what it accepts. */
export interface Field<T, R extends boolean = boolean> {
  readonly schema: SchemaNode;
  readonly required: R;
  /** Type only: what the field holds once checked. */
  readonly value?: T;
}

type ValueOf<F> = F extends Field<infer T> ? T : never;
type Fields = Record<string, Field<unknown>>;

/** A body's type from its fields: required ones present, the others possibly absent. */
export type BodyOf<F extends Fields> = {
  [K in keyof F as F[K]["required"] extends true ? K : never]: ValueOf<F[K]>;
} & {
  [K in keyof F as F[K]["required"] extends true ? never : K]?: ValueOf<F[K]>;
};

const nullable = (type: string | string[], required: boolean): string | string[] =>
  required ? type : [...(Array.isArray(type) ? type : [type]), "null"];

/** A string: `required` refuses absence, null and blank text; `nonEmpty` refuses blank text. */
export function text<const R extends boolean = false>(
  options: { required?: R; max?: number; nonEmpty?: boolean } = {},
): Field<string, R> {
  const required = (options.required ?? false) as R;
  const schema: SchemaNode = {
    type: nullable("string", required),
    says: { type: "must be a string", null: "is required", pattern: "is required" } satisfies Says,
  };
  if (required || options.nonEmpty) schema.pattern = "\\S";
  if (options.max !== undefined) {
    schema.maxLength = options.max;
    (schema.says as Says).maxLength = `may be at most ${options.max} characters`;
  }
  return { schema, required };
}

export function flag(wrong = "must be true or false"): Field<boolean, false> {
  return { schema: { type: ["boolean", "null"], says: { type: wrong } }, required: false };
}

export function integer(options: { min?: number; max?: number } = {}): Field<number, false> {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const says: Says = { type: "must be an integer" };
  says.minimum = options.min !== undefined ? `must be at least ${min}` : says.type;
  says.maximum = options.max !== undefined ? `must be at most ${max}` : says.type;
  return { schema: { type: ["integer", "null"], minimum: min, maximum: max, says }, required: false };
}

/** Any JSON object (a note's body). */
export function object<const R extends boolean = false>(
  options: { required?: R } = {},
): Field<JsonObject, R> {
  const required = (options.required ?? false) as R;
  return {
    schema: {
      type: nullable("object", required),
      says: { type: "must be a JSON object", null: "is required" },
    },
    required,
  };
}

/** An object with fields of its own (`connectivity_assurance`). */
export function shape<F extends Fields>(fields: F): Field<BodyOf<F>, false> {
  return {
    schema: { ...objectSchema(fields), type: ["object", "null"], says: { type: "must be a JSON object" } },
    required: false,
  };
}

export function texts<const R extends boolean = false>(
  options: { required?: R; max?: number } = {},
): Field<string[], R> {
  const required = (options.required ?? false) as R;
  const wrong = "must be an array of strings";
  const schema: SchemaNode = {
    type: nullable("array", required),
    items: { type: "string", says: { atParent: wrong } },
    says: { type: wrong, null: "is required" } satisfies Says,
  };
  if (options.max !== undefined) {
    schema.maxItems = options.max;
    (schema.says as Says).maxItems = `may hold at most ${options.max} entries`;
  }
  return { schema, required };
}

/** An object whose values are all strings (environment variables). */
export function textMap<const R extends boolean = false>(
  options: { required?: R } = {},
): Field<Record<string, string>, R> {
  const required = (options.required ?? false) as R;
  return {
    schema: {
      type: nullable("object", required),
      additionalProperties: { type: "string", says: { type: "must be a string" } },
      says: { type: "must be a JSON object of strings", null: "is required" },
    },
    required,
  };
}

/** A JSON value of any type, checked by the handler (`when`, epoch seconds or an ISO text). */
export function anyValue(): Field<unknown, false> {
  return { schema: {}, required: false };
}

function objectSchema(fields: Fields): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = field.schema;
    if (field.required) required.push(name);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/** JSON Pointer segments to the dotted path our texts use. */
function pathOf(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** An Ajv error in the hub's words. */
export function refusal(error: ErrorObject): HttpError {
  const path = pathOf(error.instancePath);
  if (error.keyword === "required") {
    return errors.fieldRequired(
      [...path, (error.params as { missingProperty: string }).missingProperty].join("."),
    );
  }
  const says = ((error.parentSchema as { says?: Says } | undefined)?.says ?? {}) as Says;
  if (error.propertyName !== undefined) path.push(error.propertyName);
  if (says.atParent !== undefined) return errors.fieldInvalid(path.slice(0, -1).join("."), says.atParent);
  const field = says.field ?? path.join(".");
  if (field === "") return errors.bodyMustBeObject();
  if (error.keyword === "type" && error.data === null && says.null !== undefined) {
    return says.null === "is required" ? errors.fieldRequired(field) : errors.fieldInvalid(field, says.null);
  }
  return errors.fieldInvalid(field, says[error.keyword] ?? says.type ?? "is not valid");
}

/** A compiled body schema: `read` checks a parsed body and answers it typed, or throws the 400. */
export class BodySchema<T> {
  #validate: ValidateFunction | undefined;

  constructor(
    /** The JSON Schema (also what the contract test compares with the OpenAPI definition). */
    readonly schema: SchemaNode,
    private readonly options: { keepNulls?: boolean } = {},
  ) {}

  /** Whether `value` passes, without the hub's texts (for callers that only need yes or no). */
  check(value: unknown): ErrorObject | undefined {
    this.#validate ??= ajv.compile(this.schema);
    return this.#validate(value) ? undefined : (this.#validate.errors ?? [])[0];
  }

  /**
   * The body checked: none (undefined, null, empty) is a 400 unless `required` is false (then
   * `{}`); anything but an object is a 400; a field that breaks its schema is a 400 naming it.
   * Members that are null count as absent and are dropped, unless the schema keeps them.
   */
  read(body: unknown, options: { required: boolean } = { required: true }): T {
    if (body === undefined || body === null || body === "") {
      if (options.required) throw errors.bodyRequired();
      body = {};
    }
    if (typeof body !== "object" || Array.isArray(body)) throw errors.bodyMustBeObject();
    const error = this.check(body);
    if (error) throw refusal(error);
    if (this.options.keepNulls) return body as T;
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body as JsonObject)) if (value !== null) out[name] = value;
    return out as T;
  }
}

/** What a body schema answers once a body passed it. */
export type Checked<S> = S extends BodySchema<infer T> ? T : never;

/** A body of the given fields; members it does not name are kept, unchecked (the hosted service ignores them). */
export function body<F extends Fields>(fields: F): BodySchema<BodyOf<F>> {
  return new BodySchema<BodyOf<F>>(objectSchema(fields));
}
