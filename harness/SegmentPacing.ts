/** A run of bytes that arrived with no pause longer than the burst gap between them. */
export interface Burst {
  /** ms since the scenario started, first and last byte. */
  readonly start: number;
  readonly end: number;
  readonly bytes: number;
}

/** One line as it arrived on the wire (before the module's receive buffer), split in bursts. */
export interface WireLine {
  readonly link: string;
  readonly bursts: readonly Burst[];
  readonly bytes: number;
}

export interface PacingRule {
  /** Largest burst allowed, terminator excluded (note-c: 250). */
  readonly maxSegmentBytes?: number;
  /** Shortest pause between two bursts of one line (default 150 ms; note-c waits 250 ms). */
  readonly minGapMs?: number;
}

export interface PacingViolation {
  readonly line: WireLine;
  readonly problem: string;
}

/**
 * Times the bytes of each line as they arrive from the wire, to check that a host paces its
 * segments. Bytes closer together than `burstGapMs` form one burst; a line ends at `\n`.
 */
export class WireLines {
  readonly #link: string;
  readonly #burstGapMs: number;
  readonly #lines: WireLine[] = [];
  #bursts: Burst[] = [];
  #burst: { start: number; end: number; bytes: number } | undefined;

  constructor(link: string, burstGapMs = 20) {
    this.#link = link;
    this.#burstGapMs = burstGapMs;
  }

  get lines(): readonly WireLine[] {
    return this.#lines;
  }

  push(t: number, bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      const nl = bytes.indexOf(0x0a, from);
      const end = nl < 0 ? bytes.length : nl + 1;
      this.#add(t, end - from);
      from = end;
      if (nl >= 0) this.#endLine();
    }
  }

  #add(t: number, n: number): void {
    if (this.#burst && t - this.#burst.end <= this.#burstGapMs) {
      this.#burst.end = t;
      this.#burst.bytes += n;
      return;
    }
    if (this.#burst) this.#bursts.push(this.#burst);
    this.#burst = { start: t, end: t, bytes: n };
  }

  #endLine(): void {
    if (this.#burst) this.#bursts.push(this.#burst);
    const bursts = this.#bursts;
    this.#lines.push({ link: this.#link, bursts, bytes: bursts.reduce((n, b) => n + b.bytes, 0) });
    this.#bursts = [];
    this.#burst = undefined;
  }
}

/** Lines that broke the rule: a burst too long, or a pause too short. */
export function pacingViolations(lines: readonly WireLine[], rule: PacingRule = {}): PacingViolation[] {
  const max = rule.maxSegmentBytes ?? 250;
  const minGap = rule.minGapMs ?? 150;
  const out: PacingViolation[] = [];
  for (const line of lines) {
    line.bursts.forEach((burst, i) => {
      // The last burst carries the line terminator (\r\n) that note-c sends after the last segment.
      const limit = i === line.bursts.length - 1 ? max + 2 : max;
      if (burst.bytes > limit) {
        out.push({ line, problem: `burst of ${burst.bytes} bytes at ${burst.start} ms (at most ${max})` });
      }
      const previous = line.bursts[i - 1];
      if (previous && burst.start - previous.end < minGap) {
        out.push({
          line,
          problem: `pause of ${burst.start - previous.end} ms at ${previous.end} ms (at least ${minGap})`,
        });
      }
    });
  }
  return out;
}
