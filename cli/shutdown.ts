/** Runs `close` once on SIGINT/SIGTERM, then exits. */
export function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error during shutdown after ${signal}: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
