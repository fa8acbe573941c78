import type { RuleSet } from "./rules.js";

/*
 * How two replies to the same request differ: members present on one side only, members of
 * different JSON types, values that differ where the rules do not mask them, and for errors the
 * {tags} (what hosts test) and the text.
 */

export type DifferenceKind = "missing" | "extra" | "type" | "value" | "error-code" | "error-text";

export interface Difference {
  /** The member's path (`net.rssi`, `files.0`); `` for the reply as a whole. */
  readonly path: string;
  readonly kind: DifferenceKind;
  /** What the real module had (a JSON type name for `type`, the value otherwise). */
  readonly real?: unknown;
  readonly sim?: unknown;
}

/** A JSON value's type as a difference names it. */
export function jsonType(value: unknown): string {
  if (value === undefined) return "absent";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The `{tags}` of an error text, sorted (`{io}`, `{not-supported}` ...). */
export function errorTags(text: string): string[] {
  return [...new Set(text.match(/\{[a-z0-9-]+\}/g) ?? [])].sort();
}

/**
 * The differences between the real module's reply and the simulated one to `request` (the
 * request name): undefined replies (no reply, a `cmd`) compare as absent.
 */
export function compareReplies(request: string, real: unknown, sim: unknown, rules: RuleSet): Difference[] {
  const out: Difference[] = [];
  compareValue({ request, rules, out }, "", real, sim, false);
  return out;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

interface Walk {
  readonly request: string;
  readonly rules: RuleSet;
  readonly out: Difference[];
}

/** Compares one member; `inMask`: a masked member holds it (its shape counts, not its values). */
function compareValue(walk: Walk, path: string, real: unknown, sim: unknown, inMask: boolean): void {
  const { request, rules, out } = walk;
  if (path !== "" && rules.ignored(request, path)) return;
  if (path === "err" && typeof real === "string" && typeof sim === "string") {
    compareErrors(request, real, sim, rules, out);
    return;
  }
  const realType = jsonType(real);
  const simType = jsonType(sim);
  if (realType !== simType) {
    if (simType === "absent") out.push({ path, kind: "missing", real });
    else if (realType === "absent") out.push({ path, kind: "extra", sim });
    else out.push({ path, kind: "type", real: realType, sim: simType });
    return;
  }
  const masked = inMask || (path !== "" && rules.masked(request, path));
  if (realType === "object") {
    const a = real as Record<string, unknown>;
    const b = sim as Record<string, unknown>;
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    for (const key of keys) compareValue(walk, join(path, key), a[key], b[key], masked);
    return;
  }
  if (masked) return;
  if (realType === "array") {
    const a = real as unknown[];
    const b = sim as unknown[];
    if (a.length !== b.length) out.push({ path, kind: "value", real: a, sim: b });
    else a.forEach((item, i) => compareValue(walk, join(path, String(i)), item, b[i], false));
    return;
  }
  if (real !== sim) out.push({ path, kind: "value", real, sim });
}

function compareErrors(request: string, real: string, sim: string, rules: RuleSet, out: Difference[]): void {
  const realTags = errorTags(real);
  const simTags = errorTags(sim);
  if (realTags.join(" ") !== simTags.join(" ")) {
    out.push({ path: "err", kind: "error-code", real: realTags.join(" "), sim: simTags.join(" ") });
  }
  // Masked, an error compares by its tags alone (the prose is the module's own).
  if (!rules.masked(request, "err") && real !== sim) {
    out.push({ path: "err", kind: "error-text", real, sim });
  }
}

/** One line about a difference, as the report prints it. */
export function describeDifference(d: Difference): string {
  const at = d.path === "" ? "the reply" : d.path;
  const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));
  switch (d.kind) {
    case "missing":
      return `${at}: only the real module has it (${show(d.real)})`;
    case "extra":
      return `${at}: only the simulated module has it (${show(d.sim)})`;
    case "type":
      return `${at}: real is ${String(d.real)}, simulated is ${String(d.sim)}`;
    case "value":
      return `${at}: real ${show(d.real)}, simulated ${show(d.sim)}`;
    case "error-code":
      return `error code: real ${String(d.real) || "(no tags)"}, simulated ${String(d.sim) || "(no tags)"}`;
    case "error-text":
      return `error text: real ${show(d.real)}, simulated ${show(d.sim)}`;
  }
}
