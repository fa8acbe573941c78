import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's chromium: the browser tests drive it, never a browser of their own download. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether the browser tests run here: with /usr/bin/chromium, yes; without it they are skipped
 * with one line saying so, except under CI=true, where a missing browser is a failure (.ci/run
 * installs it).
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env["CI"] === "true")
    throw new Error(`${CHROMIUM} is missing: .ci/run installs chromium with apt-get`);
  process.stderr.write(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)\n`);
  return false;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts headless chromium with a fresh profile, nothing fetched from anywhere but the pages opened. */
export async function startBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "cardsim-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
