import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocal, type LocalSetup } from "cardsim";
import { browserAvailable, startBrowser, type Browser } from "../../support/browser.js";
import {
  createTestDatabase,
  dropTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  testPostgresUrl,
} from "../../support/postgres.js";

const admin = testPostgresUrl();

/**
 * The console's pages against a hub whose records are in PostgreSQL (a throwaway cluster) rather
 * than SQLite: sign-in, the devices table (with the module's signal), an event arriving live, a
 * device's page with its sessions and a variable set there reaching the module, and the routes,
 * fleets and firmware pages.
 */
describe.runIf(admin !== undefined && browserAvailable())("the console on a PostgreSQL hub", () => {
  let dir: string;
  let database: string;
  let local: LocalSetup;
  let browser: Browser;
  const module = () => local.module.module;
  const sync = async () => {
    module().sync.request({ why: "explicit" });
    await module().sync.idle();
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-console-pg-"));
    database = await createTestDatabase(admin!);
    local = await startLocal({
      dir,
      hub: { listen: "127.0.0.1:0", tlsListen: false, store: database },
      module: { tcp: false, seed: 13 },
    });
    browser = await startBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await local?.close();
    if (database) await dropTestDatabase(admin!, database);
    await rm(dir, { recursive: true, force: true });
  });

  it("signs in, lists the module, shows a note live, and opens the device's page", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${local.hub.url}/`);
    await page.fill("input[name=email]", local.hub.credentials.username);
    await page.fill("input[name=password]", local.hub.credentials.password);
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const base = `${local.hub.url}/#/p/${encodeURIComponent(local.hub.credentials.project_uid)}`;

    await page.goto(`${base}/devices`);
    const row = page.locator("table.devices tbody tr", { hasText: module().deviceUid });
    await row.waitFor();
    // The signal the module reported when its session opened (filled in once the table is there).
    await row.locator("td.signal", { hasText: /^\s*\w+ \d bars? -\d+ dBm\s*$/ }).waitFor();

    await page.goto(`${base}/events`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    await page.locator("table.events").waitFor();
    await module().request({ req: "note.add", file: "pg.qo", body: { on: "postgresql" } });
    await sync();
    await page.locator("table.events tbody tr.fresh", { hasText: "pg.qo" }).waitFor({ timeout: 5000 });

    await page.goto(`${base}/devices/${encodeURIComponent(module().deviceUid)}`);
    await page.locator(".session-row").first().waitFor();
    await page.getByRole("tab", { name: "Environment" }).click();
    await page.fill("form.env-form input[name=key]", "store");
    await page.fill("form.env-form input[name=value]", "postgresql");
    await page.getByRole("button", { name: "Set on the device" }).click();
    await page.locator("table.env tr", { hasText: "store" }).filter({ hasText: "device" }).waitFor();
    await sync();
    expect(await module().request({ req: "env.get", name: "store" })).toMatchObject({ text: "postgresql" });

    for (const [path, heading] of [
      ["routes", "Routes"],
      ["fleets", "Fleets"],
      ["firmware", "Firmware"],
    ] as const) {
      await page.goto(`${base}/${path}`);
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await page.locator("p.muted, table.grid").first().waitFor();
      expect(await page.locator("main .error").count()).toBe(0);
    }
    await page.close();
  }, 60_000);
});

if (admin === undefined)
  describe("the console on a PostgreSQL hub", () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
