/**
 * A route's pending deliveries in the order they are attempted: earliest due time first, then
 * queueing order. A binary heap, so that a route with a long backlog costs O(log n) per delivery.
 */
export class DueQueue<T extends { entry: { dueMs: number; seq: number } }> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The next to attempt. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** Removes `item` when it is the next to attempt (the one just attempted); false otherwise. */
  popIf(item: T): boolean {
    if (this.#items[0] !== item) return false;
    const items = this.#items;
    const last = items.pop()!;
    if (items.length === 0) return true;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let first = i;
      if (left < items.length && this.#before(items[left]!, items[first]!)) first = left;
      if (right < items.length && this.#before(items[right]!, items[first]!)) first = right;
      if (first === i) return true;
      [items[i], items[first]] = [items[first]!, items[i]!];
      i = first;
    }
  }

  /** Removes `item` wherever it is (O(n); the attempted item is normally the first, see popIf). */
  remove(item: T): void {
    if (this.popIf(item)) return;
    const rest = this.#items.filter((x) => x !== item);
    this.#items.length = 0;
    for (const x of rest) this.push(x);
  }

  #before(a: T, b: T): boolean {
    return a.entry.dueMs < b.entry.dueMs || (a.entry.dueMs === b.entry.dueMs && a.entry.seq < b.entry.seq);
  }
}
