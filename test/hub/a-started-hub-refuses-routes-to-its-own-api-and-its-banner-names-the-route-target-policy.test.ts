import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Command } from "commander";
import { CliError } from "../../cli/CliError.js";
import { describeHub, parseRouteTargets, registerHubCommand } from "../../cli/hub.js";
import { parseHostPort } from "../../hub/HostPort.js";
import { defaultRouteTargets, startHub } from "../../runtime/startHub.js";
import { HttpEndpoint } from "./routes/support/servers.js";

async function post(
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; json: { err?: string } }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { err?: string } };
}

/**
 * startHub knows the addresses it listens on once it listens: a route to them (its own API) is a
 * 400 saying why. A hub listening on loopback only lets routes reach any other address (`any`);
 * one listening beyond it defaults to `public-only`; the banner says which is in force.
 */
describe("a started hub's route targets (loopback only)", () => {
  let dir: string;
  let backend: HttpEndpoint;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-targets-"));
    backend = await HttpEndpoint.start();
  });

  afterAll(async () => {
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("chooses the policy by where it listens", () => {
    const at = (text: string) => parseHostPort(text);
    expect(defaultRouteTargets(at("127.0.0.1:7480"), at("127.0.0.1:7443"))).toBe("any");
    expect(defaultRouteTargets(at("[::1]:7480"), undefined)).toBe("any");
    expect(defaultRouteTargets(at("localhost:7480"), undefined)).toBe("any");
    expect(defaultRouteTargets(at("0.0.0.0:7480"), undefined)).toBe("public-only");
    expect(defaultRouteTargets(at("[::]:7480"), undefined)).toBe("public-only");
    expect(defaultRouteTargets(at("127.0.0.1:7480"), at("0.0.0.0:7443"))).toBe("public-only");
    expect(defaultRouteTargets(at("192.168.1.20:7480"), undefined)).toBe("public-only");
  });

  it("cardsim hub reads --route-targets, --route-log-keep and --route-log-days, and says what is wrong with them", () => {
    expect(parseRouteTargets("public-only")).toBe("public-only");
    expect(parseRouteTargets("ANY")).toBe("any");
    expect(() => parseRouteTargets("private")).toThrow(CliError);
    expect(() => parseRouteTargets("private")).toThrow('--route-targets "private" is not any or public-only');
    const program = new Command().exitOverride();
    registerHubCommand(program);
    const hub = program.commands.find((c) => c.name() === "hub")!;
    hub.action(() => undefined);
    program.parse(["node", "cardsim", "hub", "--route-targets", "public-only", "--route-log-keep", "50"]);
    expect(hub.opts()).toMatchObject({ routeTargets: "public-only", routeLogKeep: 50, routeLogDays: 30 });
    expect(() => program.parse(["node", "cardsim", "hub", "--route-log-days", "ten"])).toThrow(
      '--route-log-days "ten" is not a whole number (0 for no limit)',
    );
  });

  it("refuses a route to its own HTTP or HTTPS API with a 400, allows the user's backend, and says 'any'", async () => {
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: "127.0.0.1:0", database: "memory" });
    try {
      const { token, project_uid: project } = hub.credentials;
      const routes = `${hub.url}/v1/projects/${project}/routes`;
      expect(hub.routeTargets).toBe("any");
      expect(describeHub(hub, dir)).toContain("route targets: any");
      const tlsPort = new URL(hub.tlsUrl!).port;
      for (const url of [`${hub.url}/v1/projects`, `https://localhost:${tlsPort}/v1/projects`]) {
        const res = await post(routes, token, { label: "loop", type: "http", http: { url } });
        expect(res.status).toBe(400);
        expect(res.json.err).toContain("would loop back into the hub");
      }
      const ok = await post(routes, token, {
        label: "mine",
        type: "http",
        http: { url: `${backend.url}/in` },
      });
      expect(ok.status).toBe(201);
    } finally {
      await hub.close();
    }
  });

  it("under public-only refuses a loopback backend and says so in its banner", async () => {
    const hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, routeTargets: "public-only" });
    try {
      expect(describeHub(hub, dir)).toContain("route targets: public-only");
      const { token, project_uid: project } = hub.credentials;
      const res = await post(`${hub.url}/v1/projects/${project}/routes`, token, {
        label: "mine",
        type: "http",
        http: { url: `${backend.url}/in` },
      });
      expect(res.status).toBe(400);
      expect(res.json.err).toContain("127.0.0.1 is a loopback address");
    } finally {
      await hub.close();
    }
  });
});
