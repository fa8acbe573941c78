import { watch } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "../../support/waiting.js";

/**
 * Fake gpiod tools (gpioset, gpioget, gpiomon, gpiofind) speaking the command lines of libgpiod
 * v1 or v2: they log every call, hold lines until killed like the real ones, print the level
 * from a state file, and stream edges the test appends to an events file. `untilCalls` waits for
 * the calls a test expects, reading the log again each time a tool writes it (a file watcher).
 * `remove` deletes the tools' folder (its caller stops the tools first).
 */
export async function fakeGpiodTools(version: 1 | 2) {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-gpiod-"));
  const log = join(dir, "calls.log");
  await writeFile(log, "");
  const script = (body: string) =>
    `#!/bin/sh\nD="${dir}"\necho "$(basename "$0") $*" >> "$D/calls.log"\n${body}\n`;
  const tools: Record<string, string> = {
    gpioset: `
if [ "$1" = "--version" ]; then echo "gpioset (libgpiod) v${version === 1 ? "1.6.3" : "2.1.3"}"; exit 0; fi
for a in "$@"; do case "$a" in *BUSY*) echo "gpioset: error setting the GPIO line values: Device or resource busy" >&2; exit 1;; esac; done
exec sleep 3600`,
    gpioget: `for a in "$@"; do L="$a"; done; cat "$D/level-$L" 2>/dev/null || echo 0`,
    gpiomon: `for a in "$@"; do L="$a"; done; touch "$D/events-$L"; exec tail -n +1 -f "$D/events-$L"`,
    gpiofind: `case "$1" in GPIO*) echo "gpiochip0 \${1#GPIO}";; *) exit 1;; esac`,
  };
  for (const [name, body] of Object.entries(tools)) {
    await writeFile(join(dir, name), script(body));
    await chmod(join(dir, name), 0o755);
  }
  const calls = async () => (await readFile(log, "utf8")).trim().split("\n").filter(Boolean);
  return {
    dir,
    calls,
    untilCalls: (check: (calls: string[]) => boolean, what: string, ms?: number) =>
      until(
        (fire) => {
          const watcher = watch(log, fire);
          return () => watcher.close();
        },
        async () => check(await calls()),
        what,
        ms,
      ),
    setLevel: (line: string, high: boolean) => writeFile(join(dir, `level-${line}`), high ? "1\n" : "0\n"),
    edge: (line: string, code: string) => appendFile(join(dir, `events-${line}`), code + "\n"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
