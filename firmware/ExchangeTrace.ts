/** Told of each line a host link sent (its first 2 KiB, as text) and the reply sent back. */
export type ExchangeListener = (request: string, reply: string | undefined) => void;

/** The module's request trace: who listens to its exchanges with the host (the module page). */
export class ExchangeTrace {
  readonly #listeners = new Set<ExchangeListener>();

  /** Adds a listener; returns the unsubscribe. */
  listen(listener: ExchangeListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Tells the listeners of one exchange (nothing is decoded while no one listens). */
  tell(line: Uint8Array, reply: string | undefined): void {
    if (this.#listeners.size === 0) return;
    const request = new TextDecoder().decode(line.subarray(0, 2048));
    for (const listener of [...this.#listeners]) listener(request, reply?.trimEnd());
  }
}
