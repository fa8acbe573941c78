import { existsSync, readFileSync, statSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { get as httpGet, type IncomingMessage } from "node:http";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startHub, type HubCredentials } from "../../runtime/startHub.js";

/**
 * startHub writes credentials.json through a rename (temp file, then rename): this hook sees the
 * complete file just before it takes its place. There, with the hub listening already, it asks
 * both of the hub's ports something, and holds the rename back until they answer or the loop has
 * turned PATIENCE times (no answer that fast is a port that holds its requests).
 */
const hook = vi.hoisted(() => ({
  onCredentials: undefined as undefined | ((temp: string, path: string) => Promise<void>),
}));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof fsp>();
  return {
    ...real,
    rename: async (from: string, to: string) => {
      if (hook.onCredentials && String(to).endsWith("credentials.json")) await hook.onCredentials(from, to);
      return real.rename(from, to);
    },
  };
});

/** Event-loop turns a probe gets to be answered before the rename goes ahead. */
const PATIENCE = 5_000;

interface Probe {
  answered: boolean;
  /** What credentials.json was when the answer arrived: missing, broken, or its URLs. */
  fileAtAnswer?: string;
  status?: number;
  done: Promise<void>;
}

function probe(url: string, ca: string | undefined, path: string): Probe {
  const p: Probe = { answered: false, done: Promise.resolve() };
  p.done = new Promise<void>((resolve, reject) => {
    const onAnswer = (res: IncomingMessage) => {
      p.answered = true;
      p.status = res.statusCode;
      if (!existsSync(path)) p.fileAtAnswer = "missing";
      else {
        try {
          const c = JSON.parse(readFileSync(path, "utf8")) as HubCredentials;
          p.fileAtAnswer = c.token ? `${c.hub_url} ${c.hub_tls_url}` : "broken";
        } catch {
          p.fileAtAnswer = "broken";
        }
      }
      res.resume();
      res.on("end", resolve);
    };
    const req = ca ? httpsGet(url, { ca, agent: false }, onAnswer) : httpGet(url, { agent: false }, onAnswer);
    req.on("error", reject);
  });
  return p;
}

describe("startHub", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(join(tmpdir(), "cardsim-hub-order-"));
  });
  afterEach(async () => {
    hook.onCredentials = undefined;
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["a first start", false],
    ["a restart", true],
  ])("on %s answers on neither port before credentials.json is complete (0600)", async (_name, restart) => {
    if (restart) await (await startHub({ dir, listen: "127.0.0.1:0", tlsListen: "127.0.0.1:0" })).close();
    const probes: Probe[] = [];
    hook.onCredentials = async (temp, path) => {
      const c = JSON.parse(await fsp.readFile(temp, "utf8")) as HubCredentials;
      const ca = await fsp.readFile(c.ca_cert!, "utf8");
      const mine = [
        probe(`${c.hub_url}/v1/projects`, undefined, path),
        probe(`${c.hub_tls_url}/v1/projects`, ca, path),
      ];
      probes.push(...mine);
      for (let i = 0; i < PATIENCE && !mine.every((p) => p.answered); i++) {
        await new Promise((r) => setImmediate(r));
      }
    };
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: "127.0.0.1:0" });
    try {
      await Promise.all(probes.map((p) => p.done));
      expect(probes).toHaveLength(2);
      for (const p of probes) {
        expect(p.status).toBe(401);
        // This start's file (a restart's earlier one names other ports).
        expect(p.fileAtAnswer).toBe(`${hub.url} ${hub.tlsUrl}`);
      }
      expect(statSync(hub.credentialsPath).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(hub.credentialsPath, "utf8"))).toEqual(hub.credentials);
    } finally {
      await hub.close();
    }
  });

  it("answers what it held 503 when credentials.json cannot be written, and fails to start", async () => {
    const probes: Probe[] = [];
    hook.onCredentials = async (temp, path) => {
      const c = JSON.parse(await fsp.readFile(temp, "utf8")) as HubCredentials;
      probes.push(probe(`${c.hub_url}/v1/projects`, undefined, path));
      for (let i = 0; i < PATIENCE && !probes[0]!.answered; i++) await new Promise((r) => setImmediate(r));
      throw Object.assign(new Error("ENOSPC: no space left on device, rename"), { code: "ENOSPC" });
    };
    await expect(startHub({ dir, listen: "127.0.0.1:0", tlsListen: false })).rejects.toThrow(/ENOSPC/);
    await probes[0]!.done;
    expect(probes[0]!.status).toBe(503);
    expect(probes[0]!.fileAtAnswer).toBe("missing");
  });
});
