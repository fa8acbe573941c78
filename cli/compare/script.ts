import { readFileSync, writeFileSync } from "node:fs";
import type { JsonObject } from "../../core/json.js";
import { CliError } from "../CliError.js";

/*
 * The files of `cardsim compare`: a script (JSON Lines, one request a line) and a transcript
 * (JSON Lines: a header, then each request with the real module's reply), docs/compare.md.
 */

/** One request of a script, with the line it came from. */
export interface ScriptStep {
  readonly line: number;
  readonly request: JsonObject;
}

/** The request's name (`req`, or `cmd` for a command). */
export function requestName(request: JsonObject): string {
  return String(request["req"] ?? request["cmd"]);
}

/** Whether the module answers the request (`cmd` is sent without a reply). */
export function isCommand(request: JsonObject): boolean {
  return request["req"] === undefined && typeof request["cmd"] === "string";
}

/** Why one line of a script is not a request, or undefined when it is one. */
function requestProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
  const o = value as Record<string, unknown>;
  if (typeof o["req"] !== "string" && typeof o["cmd"] !== "string") return 'has no "req" (or "cmd") name';
  if (o["req"] !== undefined && o["cmd"] !== undefined) return 'has both "req" and "cmd"';
  return undefined;
}

/**
 * Reads a script: one request a line (`{"req":"card.version"}`); blank lines and lines starting
 * with `#` or `//` are comments. `name` is how errors name the file.
 */
export function parseScript(text: string, name: string): ScriptStep[] {
  const steps: ScriptStep[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith("//")) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CliError(`${name}:${i + 1}: not JSON (${(error as Error).message}): one request a line`);
    }
    const problem = requestProblem(value);
    if (problem) throw new CliError(`${name}:${i + 1}: the line ${problem}: write {"req":"card.version"}`);
    steps.push({ line: i + 1, request: value as JsonObject });
  });
  if (steps.length === 0) throw new CliError(`${name} has no requests: one JSON request a line`);
  return steps;
}

export function readScript(file: string): ScriptStep[] {
  return parseScript(readText(file, "--script"), file);
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CliError(`no file ${file}: check ${flag} FILE`);
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export const TRANSCRIPT_FORMAT = "cardsim-compare-transcript";

/** The first line of a transcript: which module answered, when. */
export interface TranscriptHeader {
  readonly format: typeof TRANSCRIPT_FORMAT;
  readonly version: 1;
  /** The SKU the real module reported (`card.version`), which the simulated one is built as. */
  readonly sku: string;
  /** The real module's `card.version` reply. */
  readonly module?: JsonObject;
  readonly port?: string;
  /** When it was recorded (ISO 8601). */
  readonly recorded?: string;
  /** Anything the person who made it wants to keep beside it (where the replies come from). */
  readonly note?: string;
}

/** One exchange with the real module: no `reply` for a `cmd`, `reply: null` and `error` for none. */
export interface TranscriptEntry {
  readonly request: JsonObject;
  readonly reply?: JsonObject | null;
  readonly error?: string;
}

export interface Transcript {
  readonly header: TranscriptHeader;
  readonly entries: readonly TranscriptEntry[];
}

export function formatTranscript(transcript: Transcript): string {
  return [transcript.header, ...transcript.entries].map((line) => JSON.stringify(line)).join("\n") + "\n";
}

export function writeTranscript(file: string, transcript: Transcript): void {
  try {
    writeFileSync(file, formatTranscript(transcript));
  } catch (error) {
    throw new CliError(
      `cannot write the transcript to ${file}: ${(error as Error).message} (check --record)`,
    );
  }
}

function entryProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "the line is not a JSON object";
  const o = value as Record<string, unknown>;
  if (o["request"] === undefined) return 'its "request" is missing';
  const problem = requestProblem(o["request"]);
  if (problem) return `its "request" ${problem}`;
  const reply = o["reply"];
  if (reply !== undefined && reply !== null && (typeof reply !== "object" || Array.isArray(reply)))
    return 'its "reply" is not a JSON object';
  return undefined;
}

/** Reads a transcript written by `--record` (or by hand, docs/compare.md). */
export function parseTranscript(text: string, name: string): Transcript {
  const lines = text.split(/\r?\n/).map((l, i) => ({ text: l.trim(), n: i + 1 }));
  const content = lines.filter((l) => l.text !== "");
  const parse = (l: { text: string; n: number }): unknown => {
    try {
      return JSON.parse(l.text);
    } catch (error) {
      throw new CliError(`${name}:${l.n}: not JSON (${(error as Error).message})`);
    }
  };
  const first = content[0];
  const header = first ? (parse(first) as Partial<TranscriptHeader> | null) : undefined;
  if (!header || header.format !== TRANSCRIPT_FORMAT || typeof header.sku !== "string") {
    throw new CliError(
      `${name} is not a transcript of cardsim compare (its first line must be {"format":"${TRANSCRIPT_FORMAT}","version":1,"sku":…}): record one with --record FILE`,
    );
  }
  const entries = content.slice(1).map((l) => {
    const value = parse(l);
    const problem = entryProblem(value);
    if (problem) throw new CliError(`${name}:${l.n}: ${problem}`);
    return value as TranscriptEntry;
  });
  return { header: header as TranscriptHeader, entries };
}

export function readTranscript(file: string): Transcript {
  return parseTranscript(readText(file, "--transcript"), file);
}
