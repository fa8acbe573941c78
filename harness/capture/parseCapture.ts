import {
  CAPTURE_DIRECTIONS,
  CAPTURE_KINDS,
  type CaptureEntry,
  type CaptureMeta,
} from "../../hil/capture/CaptureEntry.js";

export interface ParsedCapture {
  readonly meta: CaptureMeta;
  readonly entries: readonly CaptureEntry[];
}

/**
 * Reads a capture file (JSON lines), strictly: a line that is not a well-formed entry is an
 * error naming the line, never skipped, because a replay of a damaged capture would prove nothing.
 */
export function parseCapture(text: string): ParsedCapture {
  const entries: CaptureEntry[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let lastT = 0;
  lines.forEach((line, i) => {
    const where = `capture line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${where}: not JSON: ${line.slice(0, 80)}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new Error(`${where}: not an object`);
    const e = value as Record<string, unknown>;
    if (typeof e["t"] !== "number" || !Number.isFinite(e["t"]) || e["t"] < 0)
      throw new Error(`${where}: t must be a number >= 0`);
    if (e["t"] < lastT) throw new Error(`${where}: t goes back in time (${e["t"]} after ${lastT})`);
    lastT = e["t"];
    if (typeof e["link"] !== "string" || e["link"] === "")
      throw new Error(`${where}: link must be a non-empty string`);
    if (!CAPTURE_DIRECTIONS.includes(e["dir"] as never))
      throw new Error(`${where}: dir must be one of ${CAPTURE_DIRECTIONS.join(", ")}`);
    if (!CAPTURE_KINDS.includes(e["kind"] as never))
      throw new Error(`${where}: kind must be one of ${CAPTURE_KINDS.join(", ")}`);
    if (typeof e["hex"] !== "string" || !/^(?:[0-9a-f]{2})*$/.test(e["hex"]))
      throw new Error(`${where}: hex must be lowercase hex byte pairs`);
    if (
      e["info"] !== undefined &&
      (typeof e["info"] !== "object" || e["info"] === null || Array.isArray(e["info"]))
    ) {
      throw new Error(`${where}: info must be an object`);
    }
    entries.push(e as unknown as CaptureEntry);
  });
  const head = entries[0];
  if (
    !head ||
    head.kind !== "meta" ||
    head.info?.["format"] !== 1 ||
    typeof head.info["clockStart"] !== "number"
  ) {
    throw new Error("capture line 1: must be the header (kind meta, info.format 1, info.clockStart)");
  }
  return { meta: head.info as unknown as CaptureMeta, entries };
}
