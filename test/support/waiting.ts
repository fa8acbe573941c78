/**
 * Waiting in tests for what the code under test reports, never by sleeping and looking again.
 *
 * `Changes` is a test's event source: the test calls `fire` from the callbacks the code under
 * test offers (a link's `onData`, a server's `onStatus`, routing's `onChange`, a fake daemon's
 * command handler, a file watcher), and `until` checks its condition now and again at each event.
 * The time limit only turns a hang into a failure that names what it waited for.
 */
export class Changes {
  readonly #wakers = new Set<() => void>();

  /** Tells every wait that something changed (pass it as a callback: it is bound). */
  readonly fire = (): void => {
    for (const wake of [...this.#wakers]) wake();
  };

  /** Resolves once `check()` holds, checking now and after each `fire`; fails after `ms`. */
  until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let checking = false;
      let again = false;
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        if (error) reject(error);
        else resolve();
      };
      // One check at a time (a check may be asynchronous); an event during one checks again after.
      const wake = () => {
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        void (async () => {
          try {
            do {
              again = false;
              if (await check()) return finish();
            } while (again);
          } catch (error) {
            finish(error as Error);
          } finally {
            checking = false;
          }
        })();
      };
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), ms);
      this.#wakers.add(wake);
      wake();
    });
  }
}

/**
 * Resolves once `check()` holds, checking now and at each event of `subscribe` (a listener
 * registration of the code under test that returns its own removal, like `routing.onChange`).
 */
export async function until(
  subscribe: (listener: () => void) => () => unknown,
  check: () => boolean | Promise<boolean>,
  what: string,
  ms?: number,
): Promise<void> {
  const changes = new Changes();
  const stop = subscribe(changes.fire);
  try {
    await changes.until(check, what, ms);
  } finally {
    stop();
  }
}
