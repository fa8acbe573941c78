/**
 * Runs `close` once on SIGINT/SIGTERM, prints one line saying what stopped and where its state
 * is (`stopped()`), then exits. A second signal while closing exits at once.
 */
export function onShutdown(close: () => Promise<void>, stopped: () => string): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) {
      process.stderr.write(`${signal} again: exiting without waiting for the shutdown\n`);
      process.exit(1);
    }
    closing = true;
    close().then(
      () => {
        process.stdout.write(`${stopped()}\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`error during shutdown after ${signal}: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
