import { promiseHooks } from "node:v8";

/**
 * A value that follows the asynchronous flow of promises, as `AsyncLocalStorage` does, for the
 * store's transaction context (`TransactionGate`): `run(value, fn)` makes `getStore()` answer
 * `value` in `fn` and in every promise reaction (an `await`'s continuation, a `then` callback)
 * created while it runs, however deep the calls and awaits go.
 *
 * Why not `AsyncLocalStorage`: on Node 20 it rides on async_hooks, whose promise hooks
 * (`promiseInitHook`, `lookupPublicResource`, the async-id stacks) cost 5-7 % of a fleet's CPU,
 * every promise of the process paying them, the modules' too. Here the hooks are V8's own
 * (`v8.promiseHooks`), one property set on a promise made inside a context and one swap of a
 * variable around each reaction. The difference: only promises carry the context. A timer, an
 * immediate or an I/O callback started inside runs outside it (with `AsyncLocalStorage` it ran
 * inside): the hub's transactions await their work, they do not hand store calls to callbacks.
 *
 * The hooks are on while some context is in use (`run` switches them on, `disable` off once no
 * context of the process wants them).
 */
export class PromiseContext<T> {
  getStore(): T | undefined {
    return valueIn(current, this) as T | undefined;
  }

  /** Runs `fn` with `value` as this context's store (undefined: none), and the promises it makes. */
  run<R>(value: T | undefined, fn: () => R): R {
    if (!enabled.has(this)) enable(this);
    const outer = current;
    // No value where there was none: nothing to note (a committed transaction's actions run so).
    if (value !== undefined || valueIn(outer, this) !== undefined) {
      // A link of this context in front is hidden by the new one: left out, so that chains stay
      // as short as the contexts that are in use (one link for the hub's one store).
      let rest = outer;
      while (rest !== undefined && rest.context === this) rest = rest.outer;
      current = { context: this, value, outer: rest };
    }
    try {
      return fn();
    } finally {
      current = outer;
    }
  }

  /** Stops tracking for this context; the hooks go off once no context wants them. */
  disable(): void {
    if (!enabled.delete(this) || enabled.size > 0) return;
    stopHooks?.();
    stopHooks = undefined;
    current = undefined;
    saved.length = 0;
  }
}

/**
 * The values of every context for the code running now (undefined: none): each `run` adds a link
 * in front of the ones it ran in, the nearest link of a context giving its value. One small object
 * a `run`, where a copy of a map of every context cost a Map (a transaction's, and each of its
 * after-commit actions'); a chain holds about one link a context in use.
 */
interface Values {
  readonly context: PromiseContext<unknown>;
  readonly value: unknown;
  readonly outer: Values | undefined;
}

function valueIn(values: Values | undefined, context: PromiseContext<unknown>): unknown {
  for (let link = values; link !== undefined; link = link.outer)
    if (link.context === context) return link.value;
  return undefined;
}

const VALUES = Symbol("cardsim.promiseContext");
type Carrier = { [VALUES]?: Values };

let current: Values | undefined;
/** The values of the code a reaction interrupted, restored after it. */
const saved: (Values | undefined)[] = [];
const enabled = new Set<PromiseContext<unknown>>();
let stopHooks: (() => void) | undefined;

function enable(context: PromiseContext<unknown>): void {
  enabled.add(context);
  stopHooks ??= promiseHooks.createHook({
    init(promise) {
      if (current !== undefined) (promise as Carrier)[VALUES] = current;
    },
    before(promise) {
      saved.push(current);
      current = (promise as Carrier)[VALUES];
    },
    after() {
      current = saved.pop();
    },
  }) as () => void;
}
