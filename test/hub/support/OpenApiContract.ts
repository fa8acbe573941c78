import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => void;

/** `../shared` beside the repository (the reference data; absent in a user's clone). */
export const SHARED_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared");
const CURRENT = join(SHARED_DIR, "notehub-api/notehub-openapi.yaml");
const CLIENT = join(SHARED_DIR, "notehub-api/notehub-openapi-2025-03-client-1.0.27-beta.5.yaml");

export const CONTRACT_SKIP_MESSAGE = `OpenAPI definitions not found under ${SHARED_DIR}/notehub-api: contract checks skipped (they need the shared reference data beside the repository)`;

type Json = Record<string, unknown>;

interface Operation {
  spec: "current" | "client";
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  op: Json;
}

/** OpenAPI 3.0 → JSON Schema for ajv: `$ref` siblings are ignored (3.0 rule), empty `type` dropped. */
function sanitize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sanitize);
  if (!node || typeof node !== "object") return node;
  const o = node as Json;
  if (typeof o.$ref === "string") return { $ref: o.$ref };
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "example" || k === "examples" || k.startsWith("x-")) continue;
    if (k === "type" && v === "") continue;
    out[k] = sanitize(v);
  }
  return out;
}

/** Whether a schema accepts every object: it requires no member and forbids none. */
function acceptsAnyObject(schema: Json | undefined): boolean {
  return !!schema && schema.required === undefined && schema.additionalProperties !== false;
}

/**
 * A `oneOf` whose branches (references to component schemas) each accept any object can never be
 * met by an object: every one matches all of them (Monitor's `alert_routes`: Slack webhook, Slack
 * bearer and e-mail targets, none with a required member). Such a `oneOf` is read as the
 * `anyOf` it must mean; every other `oneOf` is left as written.
 */
function relaxOverlappingOneOf(node: unknown, schemas: Record<string, Json>): void {
  if (Array.isArray(node)) return node.forEach((n) => relaxOverlappingOneOf(n, schemas));
  if (!node || typeof node !== "object") return;
  const o = node as Json;
  const branches = o.oneOf;
  if (Array.isArray(branches) && branches.length > 1) {
    const targets = branches.map((b) => {
      const ref = (b as Json).$ref;
      return typeof ref === "string" ? schemas[ref.replace("#/components/schemas/", "")] : undefined;
    });
    if (targets.every(acceptsAnyObject)) {
      o.anyOf = branches;
      delete o.oneOf;
    }
  }
  for (const value of Object.values(o)) relaxOverlappingOneOf(value, schemas);
}

export interface ContractResult {
  /** The operation the response was checked against ("" when the path is not in either definition). */
  operation: string;
  problems: string[];
}

/**
 * Checks hub responses against the OpenAPI definitions in ../shared: the current one first, the
 * one the installable client was built from for the operations only it has. A status the
 * operation does not declare must be an error carrying the API's Error body.
 */
export class OpenApiContract {
  readonly #ops: Operation[] = [];
  readonly #ajv = new Ajv({ strict: false, allErrors: true });
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #components = new Map<string, unknown>();

  private constructor() {
    addFormats(this.#ajv);
    for (const f of ["int", "int32", "int64", "double", "float", "binary", "password"])
      this.#ajv.addFormat(f, true);
    for (const [name, file] of [
      ["current", CURRENT],
      ["client", CLIENT],
    ] as const) {
      const doc = parse(readFileSync(file, "utf8")) as Json;
      const components = sanitize(doc.components) as Json;
      relaxOverlappingOneOf(components, (components.schemas ?? {}) as Record<string, Json>);
      this.#components.set(name, components);
      for (const [template, ops] of Object.entries(doc.paths as Json)) {
        for (const [method, op] of Object.entries(ops as Json)) {
          if (!["get", "put", "post", "delete", "patch"].includes(method)) continue;
          const segments = template.split("/").filter((s) => s !== "");
          const pattern = new RegExp(
            `^/${segments.map((s) => (s.startsWith("{") ? "([^/]+)" : s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))).join("/")}$`,
          );
          this.#ops.push({
            spec: name,
            method: method.toUpperCase(),
            template,
            pattern,
            literals: segments.filter((s) => !s.startsWith("{")).length,
            op: op as Json,
          });
        }
      }
    }
  }

  static #instance: OpenApiContract | null | undefined;

  /** The contract, or null when ../shared is absent. */
  /**
   * The contract, or null when `../shared` is absent (a user's clone: the checks skip with
   * CONTRACT_SKIP_MESSAGE). Under CI (`CI=true`) the reference data must be there: its absence
   * fails the run instead of silently skipping the checks.
   */
  static load(): OpenApiContract | null {
    if (this.#instance === undefined) {
      const present = existsSync(CURRENT) && existsSync(CLIENT);
      if (!present && process.env["CI"] === "true") {
        throw new Error(
          `CI=true but the OpenAPI definitions are missing under ${SHARED_DIR}/notehub-api: CI must run with ../shared beside the clone`,
        );
      }
      this.#instance = present ? new OpenApiContract() : null;
    }
    return this.#instance;
  }

  /** The operation a concrete request path matches (most literal segments wins; current first). */
  find(method: string, path: string): Operation | undefined {
    const candidates = this.#ops.filter((o) => o.method === method && o.pattern.test(path));
    candidates.sort((a, b) => b.literals - a.literals || (a.spec === "current" ? -1 : 1));
    return candidates[0];
  }

  /**
   * The JSON request body schema of `method path` in each definition that has the operation,
   * its `$ref`s resolved (a reference met again inside itself is left as `{}`).
   */
  requestBodies(method: string, path: string): { spec: string; operationId: string; schema: Json }[] {
    const out: { spec: string; operationId: string; schema: Json }[] = [];
    for (const spec of ["current", "client"] as const) {
      const op = this.#ops
        .filter((o) => o.spec === spec && o.method === method && o.pattern.test(path))
        .sort((a, b) => b.literals - a.literals)[0];
      const content = ((op?.op.requestBody as Json | undefined)?.content ?? {}) as Json;
      const media = content["application/json"] as Json | undefined;
      if (!op || !media?.schema) continue;
      const components = this.#components.get(spec) as { schemas: Json };
      const resolve = (node: unknown, seen: string[]): unknown => {
        if (Array.isArray(node)) return node.map((n) => resolve(n, seen));
        if (!node || typeof node !== "object") return node;
        const o = node as Json;
        if (typeof o.$ref === "string") {
          const name = o.$ref.replace("#/components/schemas/", "");
          return seen.includes(name) ? {} : resolve(components.schemas[name], [...seen, name]);
        }
        return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolve(v, seen)]));
      };
      out.push({
        spec,
        operationId: String(op.op.operationId ?? op.template),
        schema: resolve(sanitize(media.schema), []) as Json,
      });
    }
    return out;
  }

  #validator(op: Operation, key: string, schema: unknown): ValidateFunction {
    const id = `${op.spec} ${op.method} ${op.template} ${key}`;
    let v = this.#validators.get(id);
    if (!v) {
      v = this.#ajv.compile({ ...(sanitize(schema) as Json), components: this.#components.get(op.spec) });
      this.#validators.set(id, v);
    }
    return v;
  }

  #errorSchema(op: Operation): ValidateFunction {
    return this.#validator(op, "Error", { $ref: "#/components/schemas/Error" });
  }

  check(method: string, path: string, status: number, contentType: string, body: string): ContractResult {
    const op = this.find(method, path);
    if (!op) return { operation: "", problems: [] };
    const name = `${op.spec}:${(op.op.operationId as string) ?? op.template}`;
    const problems: string[] = [];
    const responses = (op.op.responses ?? {}) as Json;
    let declared = (responses[String(status)] ?? (status >= 400 ? responses.default : undefined)) as
      Json | undefined;
    if (declared && typeof declared.$ref === "string") {
      // A shared response (components.responses.ErrorResponse).
      const name = declared.$ref.replace("#/components/responses/", "");
      const components = this.#components.get(op.spec) as { responses?: Json };
      declared = components.responses?.[name] as Json | undefined;
    }
    const json = contentType.includes("json");
    let parsed: unknown;
    if (body !== "" && json) {
      try {
        parsed = JSON.parse(body);
      } catch {
        problems.push(`body is not JSON: ${body.slice(0, 80)}`);
        return { operation: name, problems };
      }
    }
    const validate = (v: ValidateFunction, what: string): void => {
      if (!v(parsed)) {
        problems.push(
          `${what}: ${this.#ajv.errorsText(v.errors, { separator: "; " })} in ${body.slice(0, 300)}`,
        );
      }
    };
    if (!declared) {
      if (status < 400) problems.push(`status ${status} is not declared by ${name}`);
      else validate(this.#errorSchema(op), `undeclared ${status} must carry the Error body`);
      return { operation: name, problems };
    }
    const content = declared.content as Json | undefined;
    if (!content) {
      // A declared error without a body may still carry the API's Error body.
      if (status >= 400 && body !== "") validate(this.#errorSchema(op), `${status} of ${name}`);
      // "(no body) An empty object means success": nothing, or {}.
      else if (body !== "" && body !== "{}")
        problems.push(`${status} of ${name} declares no body, got ${body.slice(0, 80)}`);
      return { operation: name, problems };
    }
    // A response in another declared media type (the events' text/csv) is text: nothing to parse.
    const type = contentType.split(";")[0]!.trim().toLowerCase();
    if (!json && type !== "" && content[type] !== undefined) return { operation: name, problems };
    const media = (content["application/json"] ?? Object.values(content)[0]) as Json | undefined;
    if (status !== 204 && media?.schema !== undefined) {
      if (!json) problems.push(`${status} of ${name} should be JSON, got ${contentType}`);
      else validate(this.#validator(op, String(status), media.schema), `${status} of ${name}`);
    }
    return { operation: name, problems };
  }
}
