import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocal, type LocalSetup } from "cardsim";
import { encodeBase64 } from "../../../core/base64.js";
import { HttpEndpoint } from "../../hub/routes/support/servers.js";
import { browserAvailable, startBrowser, type Browser } from "../../support/browser.js";

/** The page's global object, as scripts in it see it. */
type PageGlobal = { pwned?: number };

/** Markup that runs script wherever it is parsed as HTML rather than shown as text. */
const EVIL = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><svg onload="window.pwned=3">`;
const BIG = "0123456789".repeat(10_000);
const BINARY = Uint8Array.from({ length: 256 }, (_, i) => i);

/**
 * Bad input and failures in the console, in chromium: markup a device or a user wrote (a serial
 * number, a note's body, a variable's value) is shown as text and never runs; a 100 KB body and a
 * payload of binary bytes are shown without breaking the page; a change the hub refuses keeps
 * everything typed and shows the API's own error text; forms check what they can before sending;
 * a route test sends its sample through that route only.
 */
describe.runIf(browserAvailable())("the console with hostile, large and refused input", () => {
  let dir: string;
  let local: LocalSetup;
  let browser: Browser;
  let endpoint: HttpEndpoint;
  let project: string;
  const module = () => local.module.module;
  const sync = async () => {
    module().sync.request({ why: "explicit" });
    await module().sync.idle();
  };
  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${local.hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${local.hub.credentials.token}`, "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-console-input-"));
    local = await startLocal({
      dir,
      hub: { listen: "127.0.0.1:0", tlsListen: false },
      module: { tcp: false, seed: 5 },
    });
    project = local.hub.credentials.project_uid;
    endpoint = await HttpEndpoint.start();
    expect(await module().request({ req: "hub.set", sn: EVIL })).not.toHaveProperty("err");
    for (const note of [
      { file: "hostile.qo", body: { text: EVIL } },
      { file: "big.qo", body: { blob: BIG } },
      { file: "binary.qo", payload: encodeBase64(BINARY) },
    ])
      expect(await module().request({ req: "note.add", ...note })).not.toHaveProperty("err");
    await sync();
    const vars = await rest("PUT", `/v1/projects/${project}/environment_variables`, {
      environment_variables: { greeting: EVIL },
    });
    expect(vars.status).toBe(200);
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await local?.close();
    await endpoint?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const signIn = async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${local.hub.url}/`);
    await page.fill("input[name=email]", local.hub.credentials.username);
    await page.fill("input[name=password]", local.hub.credentials.password);
    await page.click("button[type=submit]");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    return { page, dialogs };
  };
  const open = (page: Page, path: string) =>
    page.goto(`${local.hub.url}/#/p/${encodeURIComponent(project)}/${path}`);
  /** Nothing written by a device or a user ran, and the page did not grow sideways. */
  const unharmed = async (page: Page, dialogs: string[]) => {
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(await page.locator("main img, main script, main svg:not(.map)").count()).toBe(0);
    const width = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );
    expect(width).toBeLessThanOrEqual(1280);
  };

  it("shows a serial number, note bodies and a variable holding markup as text, never running it", async () => {
    const { page, dialogs } = await signIn();
    await open(page, "devices");
    const row = page.locator("table.devices tbody tr", { hasText: module().deviceUid });
    await row.waitFor();
    await expect(row.locator("td").first().textContent()).resolves.toContain(EVIL);
    // The signal the module reported when its session opened (filled in once the table is there).
    await row.locator("td.signal", { hasText: /^\s*\w+ \d bars? -\d+ dBm\s*$/ }).waitFor();
    await unharmed(page, dialogs);

    await row.getByRole("link").click();
    await expect(page.locator(".facts dd").first().textContent()).resolves.toBe(EVIL);
    await page.locator(".facts dd.signal", { hasText: /^\w+ \d bars? -\d+ dBm$/ }).waitFor();
    await page.getByRole("tab", { name: "Environment" }).click();
    const greeting = page.locator("table.env tr", { hasText: "greeting" });
    await expect(greeting.locator("td").nth(1).textContent()).resolves.toBe(EVIL);
    await page.getByRole("tab", { name: "Events" }).click();
    await page.locator("table.events tbody tr", { hasText: "hostile.qo" }).waitFor();
    await unharmed(page, dialogs);
    await page.close();
  });

  it("shows a 100 KB body cut short and a binary payload as its size and first bytes, the page intact", async () => {
    const { page, dialogs } = await signIn();
    await open(page, "events");
    const big = page.locator("table.events tbody tr", { hasText: "big.qo" });
    await big.waitFor();
    const shown = (await big.locator("td.body").textContent())!;
    expect(shown.startsWith('{"blob":"0123456789')).toBe(true);
    expect(shown.length).toBeLessThan(1000);
    const binary = page.locator("table.events tbody tr", { hasText: "binary.qo" });
    await expect(binary.locator("td").last().textContent()).resolves.toBe("256 B: 00 01 02 03 04 05 06 07 …");
    const hostile = page.locator("table.events tbody tr", { hasText: "hostile.qo" });
    await expect(hostile.locator("td.body").textContent()).resolves.toBe(JSON.stringify({ text: EVIL }));
    await unharmed(page, dialogs);
    await page.close();
  });

  it("keeps what was typed when the hub refuses a change, showing the API's own error text", async () => {
    const { page } = await signIn();
    const posted: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") posted.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });

    // A route the hub refuses: the JSON is well formed, what it says is not.
    await open(page, "routes");
    await page.getByRole("button", { name: "New route" }).click();
    const route = { label: "nowhere", type: "http", http: { url: "ftp://example.invalid/in" } };
    const typed = JSON.stringify(route, null, 1);
    await page.fill("textarea[name=route]", "{not json");
    await page.getByRole("button", { name: "Create" }).click();
    await expect(page.locator("form.route-editor .error").textContent()).resolves.toMatch(
      /^The route is not JSON/,
    );
    expect(posted).toEqual([]);
    await page.fill("textarea[name=route]", typed);
    await page.getByRole("button", { name: "Create" }).click();
    const refused = await rest("POST", `/v1/projects/${project}/routes`, route);
    expect(refused.status).toBe(400);
    await expect(page.locator("form.route-editor .error").textContent()).resolves.toBe(refused.json["err"]);
    expect(await page.inputValue("textarea[name=route]")).toBe(typed);

    // A variable's name longer than the hub takes.
    await open(page, `devices/${encodeURIComponent(module().deviceUid)}`);
    await page.getByRole("tab", { name: "Environment" }).click();
    const name = "n".repeat(300);
    await page.fill("form.env-form input[name=key]", name);
    await page.fill("form.env-form input[name=value]", "kept");
    await page.getByRole("button", { name: "Set on the device" }).click();
    const envRefused = await rest(
      "PUT",
      `/v1/projects/${project}/devices/${module().deviceUid}/environment_variables`,
      {
        environment_variables: { [name]: "kept" },
      },
    );
    expect(envRefused.status).toBe(400);
    await expect(page.locator("form.env-form .error").textContent()).resolves.toBe(envRefused.json["err"]);
    expect(await page.inputValue("form.env-form input[name=key]")).toBe(name);
    expect(await page.inputValue("form.env-form input[name=value]")).toBe("kept");

    // A note body that is not a JSON object is caught before it is sent.
    await page.getByRole("tab", { name: "Notefiles" }).click();
    posted.length = 0;
    await page.fill("form.note-form textarea[name=body]", "[1, 2]");
    await page.getByRole("button", { name: "Add note" }).click();
    await expect(page.locator("form.note-form .error").textContent()).resolves.toMatch(
      /must be a JSON object/,
    );
    expect(await page.inputValue("form.note-form textarea[name=body]")).toBe("[1, 2]");
    expect(posted).toEqual([]);
    await page.close();
  });

  it("tests a route with a sample event sent through that route only, storing no event", async () => {
    const created = await rest("POST", `/v1/projects/${project}/routes`, {
      label: "sample target",
      type: "http",
      http: { url: `${endpoint.url}/in` },
    });
    expect(created.status).toBe(201);
    endpoint.handler = (_req, res) => res.end("sample received");
    const before = await rest("GET", `/v1/projects/${project}/events?pageSize=1000`);
    const { page } = await signIn();
    const posted: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") posted.push(new URL(r.url()).pathname);
    });
    await open(page, "routes");
    await page
      .locator("table.grid tr", { hasText: "sample target" })
      .getByRole("button", { name: "Test with a sample event" })
      .click();
    const form = page.locator("form.route-test");
    await form.locator("input[name=device]").fill("not-a-device");
    await form.getByRole("button", { name: "Send the sample" }).click();
    await expect(form.locator(".error").textContent()).resolves.toMatch(/must be a DeviceUID/);
    expect(posted).toEqual([]);
    await form.locator("input[name=device]").fill("dev:000000000000099");
    await form.locator("input[name=body]").fill('{"sample": 1}');
    await form.getByRole("button", { name: "Send the sample" }).click();
    await expect(form.locator(".test-result").textContent()).resolves.toMatch(
      /^200 in \d+ ms from .*: sample received$/,
    );
    expect(endpoint.received.map((r) => r.json)).toEqual([
      expect.objectContaining({ device: "dev:000000000000099", file: "data.qo", body: { sample: 1 } }),
    ]);
    const after = await rest("GET", `/v1/projects/${project}/events?pageSize=1000`);
    expect((after.json["events"] as unknown[]).length).toBe((before.json["events"] as unknown[]).length);
    await page.close();
  });
});
