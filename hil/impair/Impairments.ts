import type { Clock } from "../../core/Clock.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import type { ByteStage } from "../stages/ByteStage.js";
import { BaudPacer } from "./BaudPacer.js";
import { ByteSelector, type ByteSelection } from "./ByteSelector.js";
import { DropBytes } from "./DropBytes.js";
import { DuplicateBytes } from "./DuplicateBytes.js";
import { FlipBits } from "./FlipBits.js";
import type { ImpairmentEvent } from "./ImpairmentEvent.js";
import { InsertBytes } from "./InsertBytes.js";
import { LinkOutage } from "./LinkOutage.js";
import { SplitWrites } from "./SplitWrites.js";
import { Stall } from "./Stall.js";

/** One impairment of one direction of a byte link, as plain JSON (scenarios, captures, docs). */
export type ImpairmentSpec =
  | { readonly drop: ByteSelection }
  | { readonly duplicate: ByteSelection }
  /** XOR with `mask`, or flip one seeded bit. */
  | { readonly flip: ByteSelection & { readonly mask?: number } }
  /** Before each selected byte: `bytes` (hex string or numbers) or `length` seeded garbage bytes. */
  | {
      readonly insert: ByteSelection & {
        readonly bytes?: string | readonly number[];
        readonly length?: number;
      };
    }
  | { readonly split: { readonly size?: number; readonly max?: number } }
  | { readonly baud: number | { readonly baud: number; readonly bitsPerByte?: number } }
  | {
      readonly stall: {
        readonly atByte?: number | readonly number[];
        readonly atMs?: number | readonly number[];
        readonly ms: number;
      };
    };

export type Direction = "h2m" | "m2h";

/** Impairments of both directions of a link, and when it is cut. Times are ms of the link's clock. */
export interface LinkImpairmentSpec {
  /** Host to module, applied in order. */
  readonly h2m?: readonly ImpairmentSpec[];
  /** Module to host, applied in order. */
  readonly m2h?: readonly ImpairmentSpec[];
  /** Disconnections: from `at` ms after the link was made, for `for` ms. */
  readonly outages?: readonly { readonly at: number; readonly for: number }[];
}

export interface BuiltImpairments {
  readonly h2m: ByteStage[];
  readonly m2h: ByteStage[];
  readonly outage: LinkOutage;
}

const KINDS = ["drop", "duplicate", "flip", "insert", "split", "baud", "stall"] as const;

function parseBytes(value: string | readonly number[]): Uint8Array {
  if (typeof value !== "string") {
    for (const b of value)
      if (!Number.isInteger(b) || b < 0 || b > 255) throw new Error(`insert bytes: ${b} is not a byte`);
    return Uint8Array.from(value);
  }
  if (!/^([0-9a-fA-F]{2})+$/.test(value)) throw new Error(`insert bytes: "${value}" is not hex`);
  return Uint8Array.from(value.match(/../g)!.map((h) => parseInt(h, 16)));
}

/**
 * Builds impairment stages from their JSON form. Each stage draws from its own generator, seeded
 * from `seed`, its direction and its index, so adding an impairment never changes what the others
 * do, and the same seed always hits the same bytes.
 */
export function buildImpairments(
  spec: LinkImpairmentSpec,
  env: { clock: Clock; seed: number | string; report?: (dir: Direction, event: ImpairmentEvent) => void },
): BuiltImpairments {
  const report = (dir: Direction) => (event: ImpairmentEvent) => env.report?.(dir, event);
  const build = (dir: Direction, list: readonly ImpairmentSpec[] = []) =>
    list.map((one, index) =>
      buildImpairment(one, {
        clock: env.clock,
        random: new SeededRandom(`${env.seed}/${dir}/${index}`),
        report: report(dir),
      }),
    );
  return {
    h2m: build("h2m", spec.h2m),
    m2h: build("m2h", spec.m2h),
    outage: new LinkOutage(env.clock, { schedule: spec.outages, report: (dir) => report(dir) }),
  };
}

/** One stage from its JSON form. */
export function buildImpairment(
  spec: ImpairmentSpec,
  env: { clock: Clock; random: SeededRandom; report?: (event: ImpairmentEvent) => void },
): ByteStage {
  const keys = Object.keys(spec);
  if (keys.length !== 1 || !(KINDS as readonly string[]).includes(keys[0]!)) {
    throw new Error(`an impairment is one of ${KINDS.join(", ")}; got ${JSON.stringify(spec)}`);
  }
  const report = env.report ?? (() => undefined);
  const { random } = env;
  if ("drop" in spec) return new DropBytes(new ByteSelector(spec.drop, random), report);
  if ("duplicate" in spec) return new DuplicateBytes(new ByteSelector(spec.duplicate, random), report);
  if ("flip" in spec)
    return new FlipBits(new ByteSelector(spec.flip, random), { mask: spec.flip.mask, random }, report);
  if ("insert" in spec) {
    const { bytes, length } = spec.insert;
    return new InsertBytes(
      new ByteSelector(spec.insert, random),
      { bytes: bytes === undefined ? undefined : parseBytes(bytes), length, random },
      report,
    );
  }
  if ("split" in spec) return new SplitWrites({ ...spec.split, random });
  if ("baud" in spec) {
    const b = typeof spec.baud === "number" ? { baud: spec.baud } : spec.baud;
    return new BaudPacer(env.clock, b);
  }
  return new Stall(env.clock, spec.stall, report);
}
