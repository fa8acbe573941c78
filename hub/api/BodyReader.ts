import * as errors from "../errors.js";
import type { JsonObject } from "../../core/json.js";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Typed access to a JSON request body. Null counts as absent; a wrong type is a 400 naming the
 * field; unknown fields are ignored (as the hosted service does).
 */
export class BodyReader {
  readonly fields: JsonObject;

  constructor(body: unknown, options: { required: boolean } = { required: true }) {
    if (body === undefined || body === null || body === "") {
      if (options.required) throw errors.bodyRequired();
      this.fields = {};
      return;
    }
    if (!isObject(body)) throw errors.bodyMustBeObject();
    this.fields = body;
  }

  has(name: string): boolean {
    return this.fields[name] !== undefined && this.fields[name] !== null;
  }

  string(
    name: string,
    options: { required?: boolean; max?: number; nonEmpty?: boolean } = {},
  ): string | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) {
      if (options.required) throw errors.fieldRequired(name);
      return undefined;
    }
    if (typeof v !== "string") throw errors.fieldType(name, "a string");
    if ((options.nonEmpty || options.required) && v.trim() === "") throw errors.fieldRequired(name);
    if (options.max !== undefined && v.length > options.max) {
      throw errors.fieldInvalid(name, `may be at most ${options.max} characters`);
    }
    return v;
  }

  boolean(name: string): boolean | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") throw errors.fieldType(name, "true or false");
    return v;
  }

  integer(name: string, options: { min?: number; max?: number } = {}): number | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw errors.fieldType(name, "an integer");
    if (options.min !== undefined && v < options.min)
      throw errors.fieldInvalid(name, `must be at least ${options.min}`);
    if (options.max !== undefined && v > options.max)
      throw errors.fieldInvalid(name, `must be at most ${options.max}`);
    return v;
  }

  object(name: string): JsonObject | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) throw errors.fieldType(name, "a JSON object");
    return v;
  }

  stringArray(name: string, options: { required?: boolean; max?: number } = {}): string[] | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) {
      if (options.required) throw errors.fieldRequired(name);
      return undefined;
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      throw errors.fieldType(name, "an array of strings");
    }
    if (options.max !== undefined && v.length > options.max) {
      throw errors.fieldInvalid(name, `may hold at most ${options.max} entries`);
    }
    return v as string[];
  }

  /** An object whose values are all strings (environment variables). */
  stringMap(name: string, options: { required?: boolean } = {}): Record<string, string> | undefined {
    const v = this.fields[name];
    if (v === undefined || v === null) {
      if (options.required) throw errors.fieldRequired(name);
      return undefined;
    }
    if (!isObject(v)) throw errors.fieldType(name, "a JSON object of strings");
    for (const [key, value] of Object.entries(v)) {
      if (typeof value !== "string") throw errors.fieldType(`${name}.${key}`, "a string");
    }
    return v as Record<string, string>;
  }
}
