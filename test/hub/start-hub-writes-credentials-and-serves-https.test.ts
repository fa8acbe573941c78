import { mkdtemp, readFile, rm, stat, unlink } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerHubCommand } from "../../cli/hub.js";
import { startHub, type HubCredentials } from "../../runtime/startHub.js";
import { SqliteHubStore } from "../../hub/store/sqlite/SqliteHubStore.js";

function httpsGet(url: string, ca: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Runs `cardsim hub ...` in-process and returns what it printed on stdout. */
async function cli(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerHubCommand(program);
  let out = "";
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    // parseAsync resolves once the subcommand's (async) action has finished and printed.
    await program.parseAsync(["node", "cardsim", "hub", ...args]);
  } finally {
    write.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe("startHub and cardsim hub", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-start-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("bootstraps, writes credentials.json 0600, serves HTTPS its CA vouches for, keeps secrets across restarts", async () => {
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: "127.0.0.1:0", rateLimits: false });
    let creds: HubCredentials;
    try {
      expect(hub.bootstrapped).toBe(true);
      const path = join(dir, "credentials.json");
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, "tls/ca-key.pem"))).mode & 0o777).toBe(0o600);
      creds = JSON.parse(await readFile(path, "utf8")) as HubCredentials;
      expect(Object.keys(creds).sort()).toEqual(
        [
          "ca_cert",
          "hub_tls_url",
          "hub_url",
          "password",
          "product_uid",
          "project_uid",
          "token",
          "username",
        ].sort(),
      );
      expect(creds.project_uid).toMatch(/^app:[0-9a-f-]{36}$/);
      expect(creds.product_uid).toMatch(/^product:[^:]+:[^:]+$/);
      const ca = await readFile(creds.ca_cert!, "utf8");
      const res = await httpsGet(`${creds.hub_tls_url}/v1/projects/${creds.project_uid}`, ca, creds.token);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).uid).toBe(creds.project_uid);
      // Without the CA the certificate is not trusted.
      await expect(httpsGet(`${creds.hub_tls_url}/v1/projects`, "", creds.token)).rejects.toThrow();
      const plain = await fetch(`${creds.hub_url}/v1/projects`, {
        headers: { authorization: `Bearer ${creds.token}` },
      });
      expect(plain.status).toBe(200);
    } finally {
      await hub.close();
    }
    await hub.close(); // twice is fine

    const again = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false });
    try {
      expect(again.bootstrapped).toBe(false);
      expect(again.credentials.token).toBe(creds!.token);
      expect(again.credentials.project_uid).toBe(creds!.project_uid);
      expect(again.credentials.hub_tls_url).toBeNull();
    } finally {
      await again.close();
    }

    // A lost credentials file: a new token and password, the old token still valid.
    await unlink(join(dir, "credentials.json"));
    const third = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false });
    try {
      expect(third.credentials.token).not.toBe(creds!.token);
      const login = await fetch(`${third.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: third.credentials.username, password: third.credentials.password }),
      });
      expect(login.status).toBe(200);
    } finally {
      await third.close();
    }
  });

  it("manages tokens and OAuth clients from the command line, effective on a running hub", async () => {
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false });
    try {
      const token = (await cli("token", "create", "--dir", dir, "--name", "ci", "--expires", "7d")).trim();
      expect(token).toMatch(/^cardsim_pat_/);
      const call = () => fetch(`${hub.url}/v1/projects`, { headers: { authorization: `Bearer ${token}` } });
      expect((await call()).status).toBe(200);
      const list = JSON.parse(await cli("--dir", dir, "token", "list", "--json")) as {
        uid: string;
        name: string;
      }[];
      const uid = list.find((t) => t.name === "ci")!.uid;
      await cli("token", "suspend", uid, "--dir", dir);
      expect((await call()).status).toBe(401);
      await cli("token", "resume", uid, "--dir", dir);
      expect((await call()).status).toBe(200);
      await cli("token", "delete", uid, "--dir", dir);
      expect((await call()).status).toBe(401);

      const client = JSON.parse(await cli("oauth-client", "create", "--dir", dir, "--role", "viewer")) as {
        client_id: string;
        client_secret: string;
      };
      const issued = await fetch(`${hub.url}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", ...client }).toString(),
      });
      expect(((await issued.json()) as { scope: string }).scope).toBe("viewer");

      const user = JSON.parse(
        await cli("user", "create", "dev@example.com", "--dir", dir, "--role", "developer"),
      );
      expect(user.password.length).toBeGreaterThan(10);
    } finally {
      await hub.close();
    }
  });

  it("opens an existing database with its schema and refuses one from a newer cardsim", async () => {
    const path = join(dir, "hub.db");
    const store = new SqliteHubStore(path);
    expect(await store.getMeta("bootstrap")).toBeDefined();
    await store.close();
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(path);
    db.pragma("user_version = 99");
    db.close();
    expect(() => new SqliteHubStore(path)).toThrow(/newer than this cardsim/);
  });
});
