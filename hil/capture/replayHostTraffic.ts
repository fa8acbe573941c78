import type { VariantName } from "../../firmware/Variant.js";
import { Scenario, type ScenarioOptions } from "../harness/Scenario.js";
import type { WorldAction } from "../harness/WorldAction.js";
import { sleep } from "../host/sleep.js";
import type { CaptureEntry } from "./CaptureEntry.js";
import { fromHex } from "./LinkCapture.js";
import { lineDifferences, splitLines, type LineDifference } from "./lineDiff.js";
import type { ParsedCapture } from "./parseCapture.js";

export interface ReplayResult {
  /** The module's output lines in the capture. */
  readonly expected: readonly string[];
  /** The fresh module's output lines. */
  readonly actual: readonly string[];
  readonly differences: readonly LineDifference[];
  readonly same: boolean;
}

const latin1 = new TextDecoder("latin1");

function linkText(entries: readonly CaptureEntry[], link: string, dir: "h2m" | "m2h"): string {
  return entries
    .filter((e) => e.link === link && e.dir === dir && e.kind === "bytes")
    .map((e) => latin1.decode(fromHex(e.hex)))
    .join("");
}

/**
 * Replays the host traffic of a capture into a fresh module and compares what it answers with
 * what the captured module answered. The bytes are those the captured module's session read (after
 * impairments and its receive buffer), fed at the same moments of the same clock, with the
 * scenario's world changes applied when they happened; the module boots with the capture's seed,
 * variant and time. Same replies mean the module still behaves as it did when the capture was
 * made (a regression check for captures taken from rigs and from scenarios).
 */
export async function replayHostTraffic(
  capture: ParsedCapture,
  options: {
    link?: string;
    module?: { seed: number | string; variant: VariantName; timeKnown: boolean };
    scenario?: Partial<ScenarioOptions>;
  } = {},
): Promise<ReplayResult> {
  const link = options.link ?? "serial";
  const boot = options.module ?? capture.meta.module;
  if (!boot) {
    throw new Error(
      "the capture does not say how its module booted (a module on a board): pass options.module",
    );
  }
  const moduleSide = `${link}.module`;
  const feed = capture.entries.filter(
    (e) => (e.link === moduleSide && e.dir === "h2m" && e.kind === "bytes") || e.kind === "world",
  );
  if (!capture.entries.some((e) => e.link === moduleSide)) {
    const links = [...new Set(capture.entries.map((e) => e.link))].join(", ");
    throw new Error(`the capture has no link ${moduleSide} (it has ${links})`);
  }
  const scenario = await Scenario.start({
    seed: boot.seed,
    variant: boot.variant as VariantName,
    timeKnown: boot.timeKnown,
    clockStart: capture.meta.clockStart,
    ...options.scenario,
    serial: { name: link, rx: false },
    capture: true,
  });
  try {
    const clock = scenario.clock;
    const play = (async () => {
      for (const entry of feed) {
        const wait = entry.t - scenario.elapsed();
        if (wait > 0) await sleep(clock, wait);
        if (entry.kind === "world") await scenario.world.apply(entry.info as unknown as WorldAction);
        else scenario.hostLink!.write(fromHex(entry.hex));
      }
    })();
    const end = capture.entries.at(-1)?.t ?? 0;
    await scenario.run(play, { timeout: end + 1000, what: "the captured traffic to be fed" });
    await scenario.run(scenario.uart.session.idle(), { timeout: 600_000, what: "the module to answer" });
    if (end > scenario.elapsed()) await scenario.advance(end - scenario.elapsed());
    const expected = splitLines(linkText(capture.entries, moduleSide, "m2h"));
    const actual = splitLines(linkText(scenario.capture!.entries, moduleSide, "m2h"));
    const differences = lineDifferences(expected, actual);
    return { expected, actual, differences, same: differences.length === 0 };
  } finally {
    await scenario.close();
  }
}
