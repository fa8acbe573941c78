import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { ByteLink } from "../../hil/links/ByteLink.js";
import { fromHex } from "../../hil/capture/LinkCapture.js";
import { lineDifferences, splitLines, type LineDifference } from "./lineDiff.js";
import type { ParsedCapture } from "./parseCapture.js";

interface Step {
  readonly bytes: Uint8Array;
  /** Host lines (newlines sent) the module had seen before it sent these bytes. */
  readonly afterLines: number;
  /** How long after that line was complete (or after the start) they were sent. */
  readonly delayMs: number;
}

const latin1 = new TextDecoder("latin1");

/**
 * A scripted module that plays back what a captured module sent, to a host under test. Each
 * chunk goes out once the host has sent as many lines as the captured host had at that point,
 * after the same delay, so a host that behaves as the captured one sees exactly what it saw.
 * Afterwards, `compare()` says whether the host sent the same lines.
 *
 * By default it plays the host's end of the link (`serial.host`): the bytes as the captured host
 * received them, impairments included.
 */
export class CapturedModule {
  readonly #clock: Clock;
  readonly #link: ByteLink;
  readonly #steps: Step[] = [];
  readonly #expectedHost: string[];
  readonly #lineTimes: number[] = [];
  readonly #start: number;
  #received = "";
  #next = 0;
  #busyUntil = 0;
  #timer: TimerHandle | undefined;
  #finished!: () => void;
  /** Resolves when every captured chunk has been sent. */
  readonly finished: Promise<void>;

  constructor(capture: ParsedCapture, link: ByteLink, clock: Clock, options: { link?: string } = {}) {
    this.#clock = clock;
    this.#link = link;
    this.#start = clock.now();
    const name = options.link ?? "serial.host";
    const traffic = capture.entries.filter((e) => e.link === name && e.kind === "bytes");
    if (traffic.length === 0) throw new Error(`the capture has no traffic on ${name}`);
    let lines = 0;
    let lastLineAt = 0;
    let hostText = "";
    for (const entry of traffic) {
      if (entry.dir === "h2m") {
        const text = latin1.decode(fromHex(entry.hex));
        hostText += text;
        const newlines = text.split("\n").length - 1;
        if (newlines > 0) {
          lines += newlines;
          lastLineAt = entry.t;
        }
      } else if (entry.dir === "m2h") {
        this.#steps.push({
          bytes: fromHex(entry.hex),
          afterLines: lines,
          delayMs: entry.t - (lines > 0 ? lastLineAt : 0),
        });
      }
    }
    this.#expectedHost = splitLines(hostText);
    this.finished = new Promise((resolve) => (this.#finished = resolve));
    link.onData((bytes) => this.#hostSent(bytes));
    if (this.#steps.length === 0) this.#finished();
    this.#schedule();
  }

  /** Chunks not yet sent. */
  get remaining(): number {
    return this.#steps.length - this.#next;
  }

  /** What the host under test sent, as lines. */
  get hostLines(): readonly string[] {
    return splitLines(this.#received);
  }

  /** The host under test's lines against the captured host's. */
  compare(): { same: boolean; differences: readonly LineDifference[] } {
    const differences = lineDifferences(this.#expectedHost, this.hostLines);
    return { same: differences.length === 0, differences };
  }

  #hostSent(bytes: Uint8Array): void {
    const text = latin1.decode(bytes);
    this.#received += text;
    const now = this.#clock.now() - this.#start;
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.#lineTimes.push(now);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const step = this.#steps[this.#next];
    if (!step) return;
    if (this.#lineTimes.length < step.afterLines) return;
    const base = step.afterLines > 0 ? this.#lineTimes[step.afterLines - 1]! : 0;
    const at = Math.max(this.#busyUntil, base + step.delayMs);
    const wait = Math.max(0, at - (this.#clock.now() - this.#start));
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = undefined;
      this.#busyUntil = this.#clock.now() - this.#start;
      this.#link.write(step.bytes);
      this.#next++;
      if (this.#next === this.#steps.length) this.#finished();
      this.#schedule();
    }, wait);
  }

  dispose(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }
}
