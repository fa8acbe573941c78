import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../hub/bootstrap.js";
import { HubIds } from "../../hub/HubIds.js";
import { startHub, type RunningHub } from "../../runtime/startHub.js";
import { SystemClock } from "../../runtime/SystemClock.js";

/** Reads a server-sent event stream: resolves each `next(kind)` with the next event of that kind's data. */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const received: { kind: string; data: Record<string, unknown> }[] = [];
  const waiting: (() => void)[] = [];
  if (response.status === 200) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const kind = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (kind && data) received.push({ kind, data: JSON.parse(data) as Record<string, unknown> });
            waiting.splice(0).forEach((wake) => wake());
          }
        }
      } catch {
        // Aborted by close().
      }
    })();
  }
  return {
    status: response.status,
    response,
    received,
    async until(predicate: (item: { kind: string; data: Record<string, unknown> }) => boolean) {
      while (!received.some(predicate)) await new Promise<void>((wake) => waiting.push(wake));
      return received.find(predicate)!;
    },
    close: () => controller.abort(),
  };
}

describe("the hub's live stream and the console's session", () => {
  let dir: string;
  let hub: RunningHub;
  let other: string;
  const viewer = { username: "viewer@example.com", password: "a-viewer-password" };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-stream-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, database: "memory" });
    const project = hub.credentials.project_uid;
    await createUser(hub.store, new HubIds(), new SystemClock(), {
      ...viewer,
      project: { uid: project, role: "viewer" },
    });
    const orgs = await hub.store.accounts.listOrganizationsOf(
      (await hub.store.accounts.getUserByUsername(hub.credentials.username))!.uid,
    );
    const made = await fetch(`${hub.url}/v1/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify({ label: "other", billing_account_uid: orgs[0]!.org.uid }),
    });
    other = ((await made.json()) as { uid: string }).uid;
  });
  afterAll(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  const record = (projectUid: string, deviceUid: string, file: string, body: Record<string, unknown>) =>
    hub.services.events.record({ projectUid, deviceUid, file, data: { req: "note.add", body } });

  const signIn = async (email: string, password: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${hub.url}/console/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ email, password }),
    });
    return {
      response,
      cookie: response.headers.get("set-cookie") ?? "",
      json: (await response.json()) as Record<string, string>,
    };
  };

  it("sends a viewer the events of its project as they are stored, and nothing of a project it is not in", async () => {
    const { cookie } = await signIn(viewer.username, viewer.password);
    const stream = await openStream(`${hub.url}/console/api/stream?kinds=event`, {
      cookie: cookie.split(";")[0]!,
    });
    expect(stream.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await stream.until((i) => i.kind === "hello");
    await record(other, "dev:000000000000002", "secret.qo", { secret: true });
    await record(hub.credentials.project_uid, "dev:000000000000001", "data.qo", { n: 1 });
    const item = await stream.until((i) => i.kind === "event");
    expect(item.data).toMatchObject({
      kind: "event",
      projectUid: hub.credentials.project_uid,
      file: "data.qo",
      event: { body: { n: 1 } },
    });
    expect(stream.received.filter((i) => i.kind === "event")).toHaveLength(1);
    stream.close();
    const refused = await openStream(`${hub.url}/console/api/stream?project=${other}`, {
      cookie: cookie.split(";")[0]!,
    });
    expect(refused.status).toBe(404);
  });

  it("filters by project, device and notefile for a token's caller, and tells sessions from their events", async () => {
    const auth = { authorization: `Bearer ${hub.credentials.token}` };
    const stream = await openStream(
      `${hub.url}/console/api/stream?project=${other}&device=dev:000000000000009&file=a.qo,_session.qo`,
      auth,
    );
    await stream.until((i) => i.kind === "hello");
    await record(other, "dev:000000000000008", "a.qo", { skip: "device" });
    await record(other, "dev:000000000000009", "b.qo", { skip: "file" });
    await record(other, "dev:000000000000009", "a.qo", { keep: true });
    await hub.services.events.record({
      projectUid: other,
      deviceUid: "dev:000000000000009",
      file: "_session.qo",
      sessionUid: "s-1",
      data: { req: "session.end", body: { why: "sync complete", period: { duration: 3 } } },
    });
    const session = await stream.until((i) => i.kind === "session");
    expect(session.data).toMatchObject({
      phase: "end",
      sessionUid: "s-1",
      why: "sync complete",
      period: { duration: 3 },
    });
    const events = stream.received.filter((i) => i.kind === "event").map((i) => i.data["file"]);
    expect(events).toEqual(["a.qo", "_session.qo"]);
    stream.close();
  });

  it("signs in with email and password into an HttpOnly SameSite=Strict cookie; a change needs the CSRF token", async () => {
    const wrongOrigin = await signIn(hub.credentials.username, hub.credentials.password, {
      origin: "http://evil.example",
    });
    expect(wrongOrigin.response.status).toBe(403);
    const { response, cookie, json } = await signIn(hub.credentials.username, hub.credentials.password);
    expect(response.status).toBe(200);
    expect(cookie).toMatch(
      /^cardsim_session=cardsim_session_[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    const session = cookie.split(";")[0]!;
    const env = `${hub.url}/v1/projects/${hub.credentials.project_uid}/environment_variables`;
    const put = (headers: Record<string, string>) =>
      fetch(env, {
        method: "PUT",
        headers: { cookie: session, "content-type": "application/json", ...headers },
        body: '{"environment_variables":{"k":"v"}}',
      });
    const forged = await put({});
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { err: string }).err).toMatch(
      /must carry its CSRF token in the x-csrf-token header/,
    );
    expect((await put({ "x-csrf-token": "guessed" })).status).toBe(403);
    expect((await put({ "x-csrf-token": json["csrf"]! })).status).toBe(200);
    // Reads need no token; sign-out is a change too.
    expect((await fetch(env, { headers: { cookie: session } })).status).toBe(200);
    expect(
      (await fetch(`${hub.url}/console/api/logout`, { method: "POST", headers: { cookie: session } })).status,
    ).toBe(403);
    const out = await fetch(`${hub.url}/console/api/logout`, {
      method: "POST",
      headers: { cookie: session, "x-csrf-token": json["csrf"]! },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^cardsim_session=; .*Max-Age=0/);
    expect((await fetch(env, { headers: { cookie: session } })).status).toBe(401);
  });

  it("serves the console's page at / with a policy that runs no inline or foreign script", async () => {
    const page = await fetch(`${hub.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    expect(await page.text()).toContain('<script type="module" src="/console/assets/console.js"></script>');
    const script = await fetch(`${hub.url}/console/assets/console.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await fetch(`${hub.url}/console/assets/other.js`)).status).toBe(404);
  });
});
