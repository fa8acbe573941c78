import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { startHub, type RunningHub } from "../../../runtime/startHub.js";
import { browserAvailable, startBrowser, type Browser } from "../../support/browser.js";

const DEVICE = "dev:000000000000042";

/**
 * A hub stopped and started again on the same port and directory, under an open console: the
 * live stream says it dropped, reconnects by itself and says so, shows what arrives afterwards and
 * reads again what the page missed; a save tried while the hub was down keeps everything typed,
 * says the hub did not answer, and goes through once the hub is back.
 */
describe.runIf(browserAvailable())("the console across a hub restart", () => {
  let dir: string;
  let hub: RunningHub;
  let browser: Browser;
  let port: number;
  const start = (listen: string) => startHub({ dir, listen, tlsListen: false });
  const webhookEvent = async (body: Record<string, unknown>) => {
    const project = hub.credentials.project_uid;
    const products = (await (
      await fetch(`${hub.url}/v1/projects/${project}/products`, {
        headers: { authorization: `Bearer ${hub.credentials.token}` },
      })
    ).json()) as { products: { uid: string }[] };
    const answer = await fetch(
      `${hub.url}/v1/products/${products.products[0]!.uid}/devices/${DEVICE}/webhook-event`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${hub.credentials.token}`, "content-type": "application/json" },
        body: JSON.stringify({ file: "data.qo", body }),
      },
    );
    expect(answer.status).toBe(200);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-console-restart-"));
    hub = await start("127.0.0.1:0");
    port = Number(new URL(hub.url).port);
    await webhookEvent({ n: 1 });
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("says the stream dropped, reconnects by itself when the hub is back, and keeps a save tried meanwhile", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${hub.url}/`);
    await page.fill("input[name=email]", hub.credentials.username);
    await page.fill("input[name=password]", hub.credentials.password);
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const base = `${hub.url}/#/p/${encodeURIComponent(hub.credentials.project_uid)}`;
    await page.goto(`${base}/events`);
    const status = page.locator(".live[role=status]");
    await status.filter({ hasText: /^Live$/ }).waitFor();
    await page.locator("table.events tbody tr", { hasText: '"n":1' }).waitFor();

    // A second tab, on the device's variables, with the form filled in.
    const editor = await browser.context.newPage();
    await editor.goto(`${base}/devices/${encodeURIComponent(DEVICE)}`);
    await editor.getByRole("tab", { name: "Environment" }).click();
    await editor.locator("table.env, p.muted").first().waitFor();
    await editor.fill("form.env-form input[name=key]", "threshold");
    await editor.fill("form.env-form input[name=value]", "42.5");

    await hub.close();
    await status.filter({ hasText: "The stream dropped: reconnecting" }).waitFor({ timeout: 10_000 });
    await editor.getByRole("button", { name: "Set on the device" }).click();
    await expect(editor.locator("form.env-form .error").textContent()).resolves.toMatch(
      /^The hub did not answer: is it running\? Nothing you typed is lost/,
    );
    expect(await editor.inputValue("form.env-form input[name=key]")).toBe("threshold");
    expect(await editor.inputValue("form.env-form input[name=value]")).toBe("42.5");

    // An event stored while the hub was down (straight into its database: no stream told of it)
    // is read again from the API once the stream is back.
    const store = new SqliteHubStore(join(dir, "hub.db"));
    await store.telemetry.addEvent({
      uid: "missed-while-down",
      projectUid: hub.credentials.project_uid,
      deviceUid: DEVICE,
      sessionUid: null,
      file: "data.qo",
      received: Date.now() / 1000,
      whenSec: Math.floor(Date.now() / 1000),
      data: { req: "note.add", body: { n: 2 } },
    });
    await store.close();
    hub = await start(`127.0.0.1:${port}`);
    await status.filter({ hasText: "Live again: the stream reconnected" }).waitFor({ timeout: 15_000 });
    await page.locator("table.events tbody tr", { hasText: '"n":2' }).waitFor({ timeout: 5000 });
    // And one stored afterwards arrives live, without a reload.
    await webhookEvent({ n: 3 });
    await page.locator("table.events tbody tr.fresh", { hasText: '"n":3' }).waitFor({ timeout: 5000 });

    // The save, tried again, goes through with what was typed.
    await editor.getByRole("button", { name: "Set on the device" }).click();
    await editor.locator("table.env tr", { hasText: "threshold" }).filter({ hasText: "42.5" }).waitFor();
    expect(await editor.locator("form.env-form .error").count()).toBe(0);
    await editor.close();
    await page.close();
  }, 60_000);
});
