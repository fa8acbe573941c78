import type { VariantName } from "../../firmware/Variant.js";
import { Scenario, type ScenarioOptions } from "../Scenario.js";
import type { WorldAction } from "../WorldAction.js";
import { sleep } from "../../core/Clock.js";
import type { CaptureEntry } from "../../hil/capture/CaptureEntry.js";
import { fromHex } from "../../hil/capture/LinkCapture.js";
import { lineDifferences, splitLines, type LineDifference } from "./lineDiff.js";
import type { ParsedCapture } from "./parseCapture.js";

export interface ReplayResult {
  /**
   * The module's output in the capture: its serial output split in lines, then (when the capture
   * has an I2C link) one `i2c <hex>` line per read transaction.
   */
  readonly expected: readonly string[];
  /** The fresh module's output, in the same form. */
  readonly actual: readonly string[];
  readonly differences: readonly LineDifference[];
  readonly same: boolean;
}

const i2cLine = (hex: string) => `i2c ${hex}`;

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
    module?: {
      seed: number | string;
      variant: VariantName;
      timeKnown: boolean;
      flash?: boolean;
      mojo?: boolean;
    };
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
  const hasSerial = capture.entries.some((e) => e.link === moduleSide);
  const hasI2c = capture.entries.some((e) => e.link === "i2c.module");
  if (!hasSerial && !hasI2c) {
    const links = [...new Set(capture.entries.map((e) => e.link))].join(", ");
    throw new Error(`the capture has no link ${moduleSide} or i2c.module (it has ${links})`);
  }
  const i2cMeta = (capture.meta["links"] as Record<string, Record<string, unknown>> | undefined)?.["i2c"];
  const feed = capture.entries.filter(
    (e) =>
      (e.link === moduleSide && e.dir === "h2m" && e.kind === "bytes") ||
      (e.link === "i2c.module" && (e.kind === "i2c-w" || e.kind === "i2c-r")) ||
      e.kind === "world",
  );
  const scenario = await Scenario.start({
    seed: boot.seed,
    variant: boot.variant as VariantName,
    timeKnown: boot.timeKnown,
    clockStart: capture.meta.clockStart,
    ...("flash" in boot && boot.flash ? { flash: boot.flash } : {}),
    ...("mojo" in boot && boot.mojo ? { mojo: true } : {}),
    ...options.scenario,
    serial: { name: link, rx: false },
    ...(hasI2c
      ? {
          i2c: {
            profile: typeof i2cMeta?.["profile"] === "string" ? i2cMeta["profile"] : "ideal",
            ...(typeof i2cMeta?.["address"] === "number" ? { address: i2cMeta["address"] } : {}),
          },
        }
      : {}),
    capture: true,
  });
  try {
    const clock = scenario.clock;
    const reads: string[] = [];
    const play = (async () => {
      for (const entry of feed) {
        const wait = entry.t - scenario.elapsed();
        if (wait > 0) await sleep(clock, wait);
        if (entry.kind === "world") {
          // Bytes written before a change are processed before it, as they were.
          await new Promise((resolve) => setImmediate(resolve));
          await scenario.uart.session.idle();
          await scenario.world.apply(entry.info as unknown as WorldAction);
        } else if (entry.kind === "bytes") {
          scenario.hostLink!.write(fromHex(entry.hex));
        } else {
          const bus = scenario.i2c!.bus!;
          const address =
            typeof entry.info?.["address"] === "number" ? entry.info["address"] : scenario.i2c!.address;
          if (entry.kind === "i2c-w") {
            const late = entry.info?.["lateMs"];
            if (typeof late === "number") bus.inject({ kind: "late-staging", ms: late });
            await bus.write(address, fromHex(entry.hex));
          } else {
            const length =
              typeof entry.info?.["length"] === "number" ? entry.info["length"] : entry.hex.length / 2;
            reads.push(i2cLine(Buffer.from((await bus.read(address, length)).bytes).toString("hex")));
          }
        }
      }
    })();
    const end = capture.entries.at(-1)?.t ?? 0;
    await scenario.run(play, { timeout: end + 1000, what: "the captured traffic to be fed" });
    await scenario.run(scenario.uart.session.idle(), { timeout: 600_000, what: "the module to answer" });
    if (end > scenario.elapsed()) await scenario.advance(end - scenario.elapsed());
    const expectedReads = capture.entries
      .filter((e) => e.link === "i2c.module" && e.kind === "i2c-r")
      .map((e) => i2cLine(e.hex));
    const expected = [
      ...(hasSerial ? splitLines(linkText(capture.entries, moduleSide, "m2h")) : []),
      ...expectedReads,
    ];
    const actual = [
      ...(hasSerial ? splitLines(linkText(scenario.capture!.entries, moduleSide, "m2h")) : []),
      ...reads,
    ];
    const differences = lineDifferences(expected, actual);
    return { expected, actual, differences, same: differences.length === 0 };
  } finally {
    await scenario.close();
  }
}
