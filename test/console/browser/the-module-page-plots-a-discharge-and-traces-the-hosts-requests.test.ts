import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocal, type LocalSetup } from "cardsim";
import { HostLineClient } from "../../../hil/HostLineClient.js";
import { browserAvailable, startBrowser, type Browser } from "../../support/browser.js";

const SHOTS = process.env["CARDSIM_SCREENSHOTS"] === "1" ? join(process.cwd(), "docs", "console") : undefined;

describe.runIf(browserAvailable())("the module page of a module's control server", () => {
  let dir: string;
  let local: LocalSetup;
  let browser: Browser;
  let control: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-module-page-"));
    local = await startLocal({
      dir,
      hub: { listen: "127.0.0.1:0", tlsListen: false },
      module: { tcp: { host: "127.0.0.1", port: 0 }, control: { host: "127.0.0.1", port: 0 }, seed: 11 },
    });
    const address = local.rig.control!.address;
    control = `http://127.0.0.1:${address.port}`;
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await local?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("plots the supply falling along a discharge curve, live, with the energy used", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${control}/`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const volts = page.locator("figure.plot", { hasText: "Supply voltage" });
    await volts.locator("canvas").waitFor();
    const readout = async () => Number((await volts.locator(".readout").textContent())!.split(" ")[0]);
    const posted = await fetch(`${control}/supply`, {
      method: "POST",
      body: JSON.stringify({ source: "battery", discharge: "linear:4.2-3.3/6s" }),
    });
    expect(posted.status).toBe(200);
    // The readout follows the samples the page receives: first near 4.2 V, then well down the curve.
    await expect.poll(readout, { timeout: 10_000 }).toBeGreaterThan(4.0);
    await expect.poll(readout, { timeout: 15_000 }).toBeLessThan(3.6);
    const points = Number(await volts.getAttribute("data-points"));
    expect(points).toBeGreaterThan(5);
    await page.locator("figure.plot", { hasText: "Energy used" }).locator("canvas").waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "module.png"), fullPage: true });
    await page.close();
  });

  it("traces a host's request and the module's reply as they cross the line", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${control}/`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const tcp = local.rig.tcp!.address;
    const host = await HostLineClient.tcp(tcp);
    try {
      await host.transaction('{"req":"card.version"}');
    } finally {
      await host.close();
    }
    const trace = page.getByLabel("request trace");
    await trace.locator("div", { hasText: '> {"req":"card.version"}' }).waitFor({ timeout: 5000 });
    await trace.locator("div.reply", { hasText: '"version"' }).first().waitFor({ timeout: 5000 });
    await page.close();
  });
});
