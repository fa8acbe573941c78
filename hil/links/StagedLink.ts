import type { ByteLink } from "./ByteLink.js";
import { chainStages, type ByteStage } from "../stages/ByteStage.js";

export interface StagedLinkOptions {
  /** Stages for bytes coming from the peer, in the order they pass through them. */
  readonly incoming?: readonly ByteStage[];
  /** Stages for bytes written toward the peer, in order. */
  readonly outgoing?: readonly ByteStage[];
}

/**
 * A link seen through stages in each direction: wraps any ByteLink (memory, TCP, pty, serial
 * port) so that impairments, pacing, buffers and capture apply to it without the ends knowing.
 */
export class StagedLink implements ByteLink {
  readonly #inner: ByteLink;
  readonly #stages: readonly ByteStage[];
  readonly #listeners: ((bytes: Uint8Array) => void)[] = [];
  readonly #send: (bytes: Uint8Array) => void;
  #closed = false;

  constructor(inner: ByteLink, options: StagedLinkOptions) {
    this.#inner = inner;
    const incoming = options.incoming ?? [];
    const outgoing = options.outgoing ?? [];
    this.#stages = [...incoming, ...outgoing];
    const receive = chainStages(incoming, (bytes) => {
      for (const listener of this.#listeners) listener(bytes);
    });
    this.#send = chainStages(outgoing, (bytes) => {
      if (!this.#closed) inner.write(bytes);
    });
    inner.onData((bytes) => {
      if (!this.#closed) receive(bytes);
    });
    inner.onClose(() => this.#dispose());
  }

  /** Bytes held inside the stages of both directions (in flight). */
  get held(): number {
    return this.#stages.reduce((sum, stage) => sum + stage.held, 0);
  }

  write(bytes: Uint8Array): void {
    if (!this.#closed) this.#send(bytes);
  }

  onData(listener: (bytes: Uint8Array) => void): void {
    this.#listeners.push(listener);
  }

  onClose(listener: () => void): void {
    this.#inner.onClose(listener);
  }

  async close(): Promise<void> {
    this.#dispose();
    await this.#inner.close();
  }

  /**
   * Stops using the inner link without closing it: held bytes are forgotten and nothing more
   * passes either way (the module behind it lost power; a new one will attach to the same wire).
   */
  detach(): void {
    this.#dispose();
  }

  #dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const stage of this.#stages) stage.dispose();
  }
}
