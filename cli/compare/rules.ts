import { readFileSync } from "node:fs";
import { CliError } from "../CliError.js";

/*
 * Which reply members `cardsim compare` compares, and how: a rule is a path pattern, optionally
 * for one request (`card.voltage:value`). `mask`: volatile values (times, voltages, IDs, signal):
 * the member must be there on both sides with the same type, its value is not compared.
 * `ignore`: not compared at all (present on one side only is fine).
 *
 * Paths are member names joined by dots, array elements by their index (`net.rssi`,
 * `files.0`); in patterns `*` stands for one member name and `**` for any number of them
 * (`**.time`: a `time` at any depth). `err` masked compares only the error's {tags}.
 */

export interface CompareRules {
  readonly mask: readonly string[];
  readonly ignore: readonly string[];
}

/** What a real module changes from one moment to the next, or from one unit to another. */
export const DEFAULT_RULES: CompareRules = {
  mask: [
    // Times and durations since boot.
    "**.time",
    "**.updated",
    "**.seconds",
    "**.minutes",
    // Identities of the unit, its SIM and its firmware build.
    "device",
    "sn",
    "card.version:body.built",
    "card.version:body.ver_build",
    "card.version:version",
    "card.version:body.version",
    "card.wireless:net.*",
    "card.wireless:count",
    "card.wireless:status",
    // Supply and sensors.
    "card.voltage:*",
    "card.temp:*",
    "card.power:*",
    "card.status:storage",
    "card.location:*",
    "card.time:*",
    "card.random:*",
    "card.usage.get:*",
    "card.motion:*",
    // Sessions: their state text and counters depend on the network of the moment.
    "hub.status:*",
    "hub.sync.status:*",
    "hub.get:device",
    "hub.get:sn",
  ],
  ignore: [],
};

interface RulesFile {
  defaults?: boolean;
  mask?: unknown;
  ignore?: unknown;
}

function patternList(file: string, name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === "")) {
    throw new CliError(
      `${file}: "${name}" must be a list of path patterns, like ["time", "card.status:storage"]`,
    );
  }
  return value as string[];
}

/** The defaults extended by a rules file (`{"mask":[…],"ignore":[…]}`; `"defaults":false` drops them). */
export function loadRules(file: string | undefined): CompareRules {
  if (file === undefined) return DEFAULT_RULES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CliError(`no rules file ${file}: check --rules FILE`);
    throw new CliError(`${file} is not a JSON rules file (${(error as Error).message}): see docs/compare.md`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CliError(`${file}: a rules file is a JSON object {"mask":[…],"ignore":[…]}`);
  }
  const { defaults, mask, ignore, ...rest } = parsed as RulesFile;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new CliError(
      `${file}: unknown member "${unknown[0]}" (a rules file has mask, ignore and defaults)`,
    );
  }
  const base = defaults === false ? { mask: [], ignore: [] } : DEFAULT_RULES;
  return {
    mask: [...base.mask, ...patternList(file, "mask", mask)],
    ignore: [...base.ignore, ...patternList(file, "ignore", ignore)],
  };
}

/** A compiled pattern: the request it is for (any when undefined) and a path matcher. */
interface Matcher {
  readonly request: string | undefined;
  readonly path: RegExp;
}

function compile(pattern: string): Matcher {
  // The request part ends at the first colon: request names have dots, paths never colons.
  const colon = pattern.indexOf(":");
  const request = colon > 0 ? pattern.slice(0, colon) : undefined;
  const path = colon > 0 ? pattern.slice(colon + 1) : pattern;
  return { request, path: new RegExp(`^${pathPattern(path.split("."))}$`) };
}

/** The regular expression of a dotted pattern: `*` within a member name, `**` for any members. */
function pathPattern(tokens: readonly string[]): string {
  let re = "";
  tokens.forEach((token, i) => {
    const last = i === tokens.length - 1;
    const afterAny = i > 0 && tokens[i - 1] === "**";
    if (token === "**") {
      // Zero or more members: before a name they end with its dot, at the end they start with one.
      if (last) re += i === 0 ? ".*" : "(?:\\.[^.]+)*";
      else re += (i > 0 && !afterAny ? "\\." : "") + "(?:[^.]+\\.)*";
      return;
    }
    if (i > 0 && !afterAny) re += "\\.";
    re += token
      .split("*")
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^.]*");
  });
  return re;
}

/** Rules ready to ask of a path. */
export class RuleSet {
  readonly #mask: Matcher[];
  readonly #ignore: Matcher[];

  constructor(rules: CompareRules) {
    this.#mask = rules.mask.map(compile);
    this.#ignore = rules.ignore.map(compile);
  }

  masked(request: string, path: string): boolean {
    return this.#mask.some((m) => matches(m, request, path));
  }

  ignored(request: string, path: string): boolean {
    return this.#ignore.some((m) => matches(m, request, path));
  }
}

function matches(matcher: Matcher, request: string, path: string): boolean {
  if (matcher.request !== undefined && matcher.request !== request) return false;
  return matcher.path.test(path);
}
