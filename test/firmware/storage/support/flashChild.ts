// Opens a flash directory in a separate process: `node --import tsx flashChild.ts DIR [hold]`.
// Prints one JSON line ({ok, records} or {ok: false, error}); with `hold`, keeps the flash (and
// its lock) until stdin closes.
import { openFlashStore } from "../../../../hil/storage/openFlashStore.js";

const [dir, mode] = process.argv.slice(2);
try {
  const store = await openFlashStore(dir!);
  const snapshot = await store.open();
  process.stdout.write(JSON.stringify({ ok: true, records: snapshot.records.size, pid: process.pid }) + "\n");
  if (mode === "hold") {
    process.stdin.resume();
    process.stdin.on("end", () => void store.close().then(() => process.exit(0)));
  } else {
    await store.close();
  }
} catch (error) {
  process.stdout.write(JSON.stringify({ ok: false, error: (error as Error).message }) + "\n");
  process.exitCode = 1;
}
