/**
 * One step that bytes pass through in one direction of a link: an impairment, a baud-rate pacer,
 * the module's receive buffer, a capture tap. A stage passes bytes on (now or later on its clock,
 * changed or not, in any chunking) and never reorders them, as nothing on a serial wire can.
 */
export abstract class ByteStage {
  #next: (bytes: Uint8Array) => void = () => undefined;
  #position = 0;

  /** Sets where this stage's output goes. */
  connect(next: (bytes: Uint8Array) => void): void {
    this.#next = next;
  }

  /** Bytes arriving at this stage. */
  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const start = this.#position;
    this.#position += bytes.length;
    this.receive(bytes, start);
  }

  /** Bytes that entered this stage so far (positions of impairments count from 0). */
  get position(): number {
    return this.#position;
  }

  /** Bytes accepted and not yet passed on (held by a pacer, a stall, a buffer). */
  get held(): number {
    return 0;
  }

  /** Forgets held bytes and stops timers (the link closed). */
  dispose(): void {}

  /** Handles `bytes`, the first of which is at `position` in this stage's input. */
  protected abstract receive(bytes: Uint8Array, position: number): void;

  protected emit(bytes: Uint8Array): void {
    if (bytes.length > 0) this.#next(bytes);
  }
}

/** Connects stages in order; returns the input of the first (or `sink` when there are none). */
export function chainStages(
  stages: readonly ByteStage[],
  sink: (bytes: Uint8Array) => void,
): (bytes: Uint8Array) => void {
  let next = sink;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i]!;
    stage.connect(next);
    next = (bytes) => stage.push(bytes);
  }
  return next;
}

/** A stage that passes bytes on unchanged and lets `observe` see them (capture taps, meters). */
export class TapStage extends ByteStage {
  readonly #observe: (bytes: Uint8Array, position: number) => void;

  constructor(observe: (bytes: Uint8Array, position: number) => void) {
    super();
    this.#observe = observe;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    this.#observe(bytes, position);
    this.emit(bytes);
  }
}
