import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocal, type LocalSetup } from "cardsim";
import { decodeBase64 } from "../../../core/base64.js";
import { createUser } from "../../../hub/bootstrap.js";
import { HubIds } from "../../../hub/HubIds.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import { hostFirmware } from "../../hub/dfu/support/hostFirmware.js";
import { browserAvailable, startBrowser, type Browser } from "../../support/browser.js";

/** The page's global object, as scripts in it see it. */
type PageGlobal = { document: { cookie: string }; marker?: number };

/** Screenshots of each page into docs/console/ when CARDSIM_SCREENSHOTS=1 (the README shows them). */
const SHOTS = process.env["CARDSIM_SCREENSHOTS"] === "1" ? join(process.cwd(), "docs", "console") : undefined;
const shoot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
};

const VIEWER = { username: "viewer@example.com", password: "viewer-password-1" };

describe.runIf(browserAvailable())("the console in a real browser", () => {
  let dir: string;
  let local: LocalSetup;
  let browser: Browser;
  let project: string;
  const module = () => local.module.module;
  const sync = async () => {
    module().sync.request({ why: "explicit" });
    await module().sync.idle();
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-console-"));
    local = await startLocal({
      dir,
      hub: { listen: "127.0.0.1:0", tlsListen: false },
      module: { tcp: false, seed: 7 },
    });
    project = local.hub.credentials.project_uid;
    await createUser(local.hub.store, new HubIds(), new SystemClock(), {
      ...VIEWER,
      project: { uid: project, role: "viewer" },
    });
    // A route (taking a notefile nothing writes), so the routes page has a row and its controls.
    const route = await fetch(`${local.hub.url}/v1/projects/${project}/routes`, {
      method: "POST",
      headers: { authorization: `Bearer ${local.hub.credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        label: "alerts endpoint",
        type: "http",
        http: { url: "http://127.0.0.1:9/alerts", filter: { type: "include", files: ["alerts.qo"] } },
      }),
    });
    expect(route.status).toBe(201);
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await local?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const signIn = async (who: { username: string; password: string } = local.hub.credentials) => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${local.hub.url}/`);
    await page.fill("input[name=email]", who.username);
    await page.fill("input[name=password]", who.password);
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    return page;
  };
  const open = async (page: Page, path: string) => {
    await page.goto(`${local.hub.url}/#/p/${encodeURIComponent(project)}/${path}`);
  };

  it("signs in with the hub's account into an HttpOnly, SameSite=Strict session, and signs out", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${local.hub.url}/`);
    await shoot(page, "sign-in");
    await page.fill("input[name=email]", local.hub.credentials.username);
    await page.fill("input[name=password]", "not the password");
    await page.click("button[type=submit]");
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(
      /unknown username or wrong password/,
    );
    await page.fill("input[name=password]", local.hub.credentials.password);
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await shoot(page, "projects");
    const [cookie] = await browser.context.cookies(local.hub.url);
    expect(cookie).toMatchObject({ name: "cardsim_session", httpOnly: true, sameSite: "Strict" });
    // Script in the page cannot read the session.
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).document.cookie)).toBe("");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("input[name=email]").waitFor();
    // The session token is gone at the hub: the old cookie no longer works.
    const again = await fetch(`${local.hub.url}/console/api/me`, {
      headers: { cookie: `${cookie!.name}=${cookie!.value}` },
    });
    expect(again.status).toBe(401);
    await page.close();
  });

  it("lists the module that synced on the devices page, and shows its sessions", async () => {
    const page = await signIn();
    await open(page, "devices");
    const row = page.locator("table.devices tbody tr", { hasText: module().deviceUid });
    await row.waitFor();
    await expect(row.textContent()).resolves.toMatch(/NOTE-\w+/);
    await row.locator("td.signal", { hasText: /bars/ }).waitFor();
    await shoot(page, "devices");
    await row.getByRole("link").click();
    await page.locator(".session-row").first().waitFor();
    await page.locator(".facts dd.signal", { hasText: /bars/ }).waitFor();
    await shoot(page, "device");
    await page.close();
  });

  it("shows a note added on the module on the events page live, without a reload, and never runs its markup", async () => {
    const page = await signIn();
    await open(page, "events");
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    await page.locator("table.events").waitFor();
    expect(await page.locator(".error").count()).toBe(0);
    await page.evaluate(() => ((globalThis as unknown as PageGlobal).marker = 1));
    const evil = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
    await module().request({ req: "note.add", file: "readings.qo", body: { temp: 21.5, text: evil } });
    await sync();
    const row = page.locator("table.events tbody tr.fresh", { hasText: "readings.qo" });
    await row.waitFor({ timeout: 5000 });
    await expect(row.textContent()).resolves.toContain(JSON.stringify(evil).slice(1, 60));
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).marker)).toBe(1);
    expect(await page.title()).not.toBe("pwned");
    expect(await page.locator("table.events img").count()).toBe(0);
    await shoot(page, "events");
    await page.close();
  });

  it("sets a variable in the console that reaches the module at its next sync", async () => {
    const page = await signIn();
    await open(page, `devices/${encodeURIComponent(module().deviceUid)}`);
    await page.getByRole("tab", { name: "Environment" }).click();
    await page.fill("form.env-form input[name=key]", "");
    await page.getByRole("button", { name: "Set on the device" }).click();
    await expect(page.locator("form.env-form .error").textContent()).resolves.toBe(
      "Give the variable a name",
    );
    await page.fill("form.env-form input[name=key]", "reading_interval");
    await page.fill("form.env-form input[name=value]", "15");
    await page.getByRole("button", { name: "Set on the device" }).click();
    await page
      .locator("table.env tr", { hasText: "reading_interval" })
      .filter({ hasText: "device" })
      .waitFor();
    await shoot(page, "environment");
    await sync();
    expect(await module().request({ req: "env.get", name: "reading_interval" })).toMatchObject({
      text: "15",
    });
    // The device's PIN, shown once, opens its variables to an app without a token.
    await page.getByRole("button", { name: "Issue a new PIN" }).click();
    const pin = await page.getByLabel("device PIN").textContent();
    expect(pin).toMatch(/^\d{8}$/);
    const product = encodeURIComponent(local.hub.credentials.product_uid);
    const withPin = await fetch(
      `${local.hub.url}/v1/products/${product}/devices/${module().deviceUid}/environment_variables_with_pin`,
      { headers: { "x-auth-token": pin! } },
    );
    expect(withPin.status).toBe(200);
    expect(await withPin.json()).toMatchObject({ environment_variables: { reading_interval: "15" } });
    await page.close();
  });

  it("shows a viewer no control that changes anything, and the hub refuses a forged change", async () => {
    const page = await signIn(VIEWER);
    await open(page, `devices/${encodeURIComponent(module().deviceUid)}`);
    await page.locator(".facts").waitFor();
    for (const tab of ["Environment", "Notefiles", "Firmware update"]) {
      await page.getByRole("tab", { name: tab }).click();
      await page.waitForTimeout(0);
    }
    await page.getByRole("tab", { name: "Environment" }).click();
    await page.locator("table.env").waitFor();
    expect(
      await page
        .getByRole("button", {
          name: /Set on the device|Edit|Delete|Send a signal|Add note|Upload|Issue a new PIN/,
        })
        .count(),
    ).toBe(0);
    await open(page, "routes");
    await page.getByRole("heading", { name: "Routes" }).waitFor();
    await page.locator("table.grid tr", { hasText: "alerts endpoint" }).waitFor();
    expect(
      await page.getByRole("button", { name: /New route|Test with a sample event|Edit|Delete/ }).count(),
    ).toBe(0);
    // The page's own session, as a forger would use it: without the CSRF token, and as a viewer with it.
    const path = `/v1/projects/${project}/devices/${module().deviceUid}/environment_variables`;
    const forged = await page.evaluate(async (p) => {
      const r = await fetch(p, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: '{"environment_variables":{"x":"1"}}',
      });
      return { status: r.status, err: ((await r.json()) as { err: string }).err };
    }, path);
    expect(forged.status).toBe(403);
    expect(forged.err).toMatch(/CSRF token/);
    const asViewer = await page.evaluate(async (p) => {
      const me = (await (await fetch("/console/api/me")).json()) as { csrf: string };
      const r = await fetch(p, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-csrf-token": me.csrf },
        body: '{"environment_variables":{"x":"1"}}',
      });
      return r.status;
    }, path);
    expect(asViewer).toBe(403);
    await page.close();
  });

  it("uploads an image in the console and requests it; the host reads it with dfu.get", async () => {
    const page = await signIn();
    await open(page, `devices/${encodeURIComponent(module().deviceUid)}`);
    await page.getByRole("tab", { name: "Firmware update" }).click();
    const image = hostFirmware(6000, { version: "1.2.3", product: "console test" });
    await page
      .locator("form.upload input[name=image]")
      .setInputFiles({ name: "app-1.2.3.bin", mimeType: "application/octet-stream", buffer: image });
    await page.getByRole("button", { name: "Upload" }).click();
    await page
      .locator("select[name=filename] option", { hasText: /app-1\.2\.3\$\d+\.bin/ })
      .waitFor({ state: "attached", timeout: 5000 });
    await page.getByRole("button", { name: "Request the update" }).click();
    await page.locator(".dfu-steps li", { hasText: "requested" }).waitFor({ timeout: 5000 });
    for (let i = 0; i < 5 && (await module().request({ req: "dfu.status" }))?.["mode"] !== "ready"; i++)
      await sync();
    expect(await module().request({ req: "dfu.status" })).toMatchObject({ mode: "ready" });
    await shoot(page, "firmware-update");
    await module().request({ req: "hub.set", mode: "dfu" });
    await module().sync.idle();
    const read = await module().request({ req: "dfu.get", offset: 0, length: image.length });
    const bytes = decodeBase64(String(read?.["payload"]))!;
    expect(createHash("md5").update(bytes).digest("hex")).toBe(createHash("md5").update(image).digest("hex"));
    await page.close();
  });

  it("shows routes, fleets and firmware to the owner", async () => {
    const page = await signIn();
    for (const [path, heading] of [
      ["routes", "Routes"],
      ["fleets", "Fleets"],
      ["firmware", "Firmware"],
    ] as const) {
      await open(page, path);
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await page.locator("p.muted, table.grid").first().waitFor();
      await shoot(page, path);
    }
    await page.close();
  });
});
