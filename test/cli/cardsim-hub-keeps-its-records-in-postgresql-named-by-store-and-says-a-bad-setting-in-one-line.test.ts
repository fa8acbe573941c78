import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import pg from "pg";
import { PgHubStore } from "../../hub/store/postgres/PgHubStore.js";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectApi, runCli, startCli } from "../support/cliProcess.js";
import {
  createTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  testPostgresUrl,
  withDatabase,
} from "../support/postgres.js";

/** The one line of a refusal: exit status 2, one line on stderr, no stack. */
function oneLine(run: { code: number | null; stderr: string }, line: RegExp): void {
  expect(run.stderr.trimEnd()).toMatch(line);
  expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.code).toBe(2);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("cardsim hub --store", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-store-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a store of no known kind, or a PostgreSQL URL without a database, in one line", async () => {
    oneLine(
      await runCli(["hub", "--dir", dir, "--store", "mysql://u:p@127.0.0.1/hub"]),
      /unknown kind of store/,
    );
    const noDatabase = await runCli(["hub", "--dir", dir, "--store", "postgres://u:secret@127.0.0.1:5432/"]);
    oneLine(noDatabase, /--store postgres:\/\/u:\*\*\*@127\.0\.0\.1:5432\/ is not a PostgreSQL URL/);
  });

  it("says an unreachable PostgreSQL server is to be started, also when CARDSIM_STORE names it", async () => {
    const url = `postgres://hub:secret@127.0.0.1:${await closedPort()}/hub`;
    oneLine(
      await runCli(["hub", "--dir", dir, "--store", url, "--listen", "127.0.0.1:0"]),
      /cannot reach the PostgreSQL server at 127\.0\.0\.1:\d+/,
    );
    const viaEnv = startCli(["hub", "--dir", dir, "--listen", "127.0.0.1:0", "--tls-listen", "off"], {
      env: { CARDSIM_STORE: url },
    });
    const code = await new Promise((resolve) => viaEnv.child.once("exit", resolve));
    oneLine({ code: code as number, stderr: viaEnv.stderr() }, /cannot reach the PostgreSQL server/);
  });

  const admin = testPostgresUrl();
  if (!admin) it.skip(POSTGRES_SKIP_MESSAGE, () => undefined);
  (admin ? it : it.skip)(
    "serves the API from a PostgreSQL database, manages its tokens there, and says a missing database in one line",
    async () => {
      oneLine(
        await runCli([
          "hub",
          "--dir",
          dir,
          "--store",
          withDatabase(admin!, "cardsim_missing"),
          "--listen",
          "127.0.0.1:0",
        ]),
        /database "cardsim_missing" does not exist/,
      );
      const url = await createTestDatabase(admin!);
      const hub = startCli([
        "hub",
        "--dir",
        dir,
        "--store",
        url,
        "--listen",
        "127.0.0.1:0",
        "--tls-listen",
        "off",
      ]);
      try {
        const [, shown] = await hub.waitFor(/store\s+(\S+)/);
        expect(shown).toMatch(/^postgres:\/\/postgres:\*\*\*@/);
        expect(hub.stdout()).not.toContain(new URL(url).password);
        const credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as Record<
          string,
          string
        >;
        const api = projectApi(() => credentials);
        expect((await api("/devices")).status).toBe(200);
        const token = await runCli(["hub", "token", "create", "--store", url, "--name", "ci"]);
        expect(token.code, token.stderr).toBe(0);
        const secret = token.stdout.trim().split(/\s+/).pop()!;
        const call = await fetch(
          `${credentials["hub_url"]}/v1/projects/${credentials["project_uid"]}/devices`,
          {
            headers: { authorization: `Bearer ${secret}` },
          },
        );
        expect(call.status).toBe(200);
      } finally {
        expect(await hub.stop("SIGTERM")).toBe(0);
      }
    },
  );

  (admin ? it : it.skip)(
    "says a refused password and a database of a newer schema in one line each",
    async () => {
      const wrong = admin!.replace(/:\/\/([^:]+):[^@]*@/, "://$1:wrong-password@");
      const refused = await runCli(["hub", "--dir", dir, "--store", wrong, "--listen", "127.0.0.1:0"]);
      oneLine(refused, /refused user postgres .*: fix the user and password in --store$/);
      expect(refused.stderr).not.toContain("wrong-password");

      const url = await createTestDatabase(admin!);
      await (await PgHubStore.open(url)).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("INSERT INTO schema_version (version, applied) VALUES (999, 0)");
      await client.end();
      oneLine(
        await runCli(["hub", "--dir", dir, "--store", url, "--listen", "127.0.0.1:0"]),
        /schema version 999 is newer than this cardsim understands \(\d+\); use a newer cardsim or another database$/,
      );
    },
  );
});
