import { wrongFieldType } from "../errors.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";

function jsonType(value: unknown): string {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "number";
  if (typeof value === "string") return "string";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** Fields the dispatcher reads for every request. */
const DISPATCHED: ReadonlySet<string> = new Set(["req", "cmd", "id", "crc"]);

/**
 * Typed access to the fields of one request. A field of the wrong JSON type is an `{io}` error
 * worded like the module's own JSON decoder; `null` counts as absent. Unknown fields are
 * ignored, as the real module does (hosts send fields no schema lists), but remembered so the
 * module can trace them.
 */
export class Args {
  readonly #req: JsonObject;
  /** Fields the request has that a handler read (a field it lacks needs no note). */
  readonly #read = new Set<string>();

  constructor(req: JsonObject) {
    this.#req = req;
  }

  get raw(): JsonObject {
    return this.#req;
  }

  has(name: string): boolean {
    const v = this.#req[name];
    return v !== undefined && v !== null;
  }

  #get(name: string, type: string): unknown {
    const v = this.#note(name);
    if (v === undefined || v === null) return undefined;
    if (jsonType(v) !== type) throw wrongFieldType(jsonType(v));
    return v;
  }

  string(name: string): string | undefined {
    return this.#get(name, "string") as string | undefined;
  }

  /** A number field read into an integer, truncated toward zero as a C decoder would. */
  int(name: string): number | undefined {
    const v = this.#get(name, "number") as number | undefined;
    return v === undefined ? undefined : Math.trunc(v);
  }

  number(name: string): number | undefined {
    return this.#get(name, "number") as number | undefined;
  }

  bool(name: string): boolean {
    return (this.#get(name, "bool") as boolean | undefined) ?? false;
  }

  /** A boolean that may be absent (as opposed to false). */
  optionalBool(name: string): boolean | undefined {
    return this.#get(name, "bool") as boolean | undefined;
  }

  object(name: string): JsonObject | undefined {
    return this.#get(name, "object") as JsonObject | undefined;
  }

  array(name: string): unknown[] | undefined {
    return this.#get(name, "array") as unknown[] | undefined;
  }

  stringArray(name: string): string[] | undefined {
    const a = this.array(name);
    if (a === undefined) return undefined;
    for (const item of a) if (typeof item !== "string") throw wrongFieldType(jsonType(item));
    return a as string[];
  }

  /** A field that may be a string or an object (e.g. `hub.set` `version`). */
  stringOrObject(name: string): string | JsonObject | undefined {
    const v = this.#note(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v === "string" || isJsonObject(v)) return v;
    throw wrongFieldType(jsonType(v));
  }

  /** Fields present in the request that no handler read. */
  unread(): string[] {
    return Object.keys(this.#req).filter((k) => !DISPATCHED.has(k) && !this.#read.has(k));
  }

  /** The field's value, the field noted as read when the request has it. */
  #note(name: string): unknown {
    const v = this.#req[name];
    if (v !== undefined || Object.hasOwn(this.#req, name)) this.#read.add(name);
    return v;
  }
}
