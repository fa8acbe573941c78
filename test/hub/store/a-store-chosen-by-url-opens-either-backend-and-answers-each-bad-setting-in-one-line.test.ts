import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  describeStoreLocation,
  openHubStore,
  parseStoreLocation,
  StoreConfigError,
} from "../../../runtime/openHubStore.js";
import {
  createTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  postgresHere,
  postgresWantedHere,
  sqliteHere,
  withDatabase,
} from "../../support/postgres.js";

/** The refusal `promise` ends with: a StoreConfigError of one line matching `line`. */
async function refusal(promise: Promise<unknown>, line: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreConfigError);
  const message = (error as Error).message;
  expect(message).toMatch(line);
  expect(message).not.toContain("\n");
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a store named by --store or CARDSIM_STORE", () => {
  // The backend-free tests and SQLite go with the SQLite half (test/support/postgres.ts).
  if (sqliteHere()) {
    it("is PostgreSQL for a postgres:// URL, SQLite for sqlite:PATH, and a directory's hub.db otherwise", () => {
      expect(parseStoreLocation("postgres://u:p@db.example:5433/hub")).toEqual({
        kind: "postgres",
        url: "postgres://u:p@db.example:5433/hub",
      });
      expect(parseStoreLocation("postgresql://u@127.0.0.1/hub").kind).toBe("postgres");
      expect(parseStoreLocation("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
      expect(parseStoreLocation("sqlite:/var/hub.db")).toEqual({ kind: "sqlite", path: "/var/hub.db" });
      expect(parseStoreLocation("/var/cardsim")).toEqual({ kind: "sqlite", path: "/var/cardsim/hub.db" });
      expect(() => parseStoreLocation("postgres://u:p@host:5432/")).toThrow(/not a PostgreSQL URL/);
      expect(() => parseStoreLocation("mysql://u:p@host/db")).toThrow(/unknown kind of store/);
      expect(() => parseStoreLocation("  ")).toThrow(/--store is empty/);
    });

    it("never shows a URL's password, and names any directory's hub.db", () => {
      fc.assert(
        fc.property(
          fc.stringMatching(/^[a-z]{1,8}$/),
          fc.stringMatching(/^[A-Za-z0-9!$%&*+,;=~-]{1,16}$/),
          fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/),
          (user, password, db) => {
            const location = parseStoreLocation(`postgres://${user}:${password}@127.0.0.1:5432/${db}`);
            const shown = describeStoreLocation(location);
            expect(shown).toBe(`postgres://${user}:***@127.0.0.1:5432/${db}`);
          },
        ),
      );
      fc.assert(
        fc.property(fc.stringMatching(/^[a-z0-9_. -]{1,20}$/), (name) => {
          fc.pre(!name.startsWith("sqlite:") && name.trim() !== "");
          const location = parseStoreLocation(`/tmp/${name.trim()}`);
          expect(location.kind).toBe("sqlite");
          expect(location.kind === "sqlite" && location.path.endsWith("/hub.db")).toBe(true);
        }),
      );
    });

    describe("on SQLite", () => {
      let dir: string;
      beforeAll(() => {
        dir = mkdtempSync(join(tmpdir(), "cardsim-store-"));
      });
      afterAll(() => rmSync(dir, { recursive: true, force: true }));

      it("opens (creating) a directory's hub.db and refuses one of a newer schema in one line", async () => {
        const store = await openHubStore(join(dir, "a"));
        await store.setMeta("k", "v");
        await store.close();
        expect(await (await openHubStore(`sqlite:${join(dir, "a", "hub.db")}`)).getMeta("k")).toBe("v");
        const db = new Database(join(dir, "a", "hub.db"));
        db.pragma("user_version = 999");
        db.close();
        await refusal(openHubStore(join(dir, "a")), /schema version 999 is newer than this cardsim/);
      });
    });
  }

  const admin = postgresHere();
  // Only in the projects that run the PostgreSQL half; skipped there without a server.
  const wanted = postgresWantedHere();
  const onPostgres = (name: string, body: () => void): void => {
    if (wanted) (admin ? describe : describe.skip)(name, body);
  };
  if (wanted && !admin) it.skip(POSTGRES_SKIP_MESSAGE, () => undefined);

  onPostgres("on PostgreSQL", () => {
    it("opens and migrates a database, which another hub process then shares", async () => {
      const url = await createTestDatabase(admin!);
      const first = await openHubStore(url);
      const second = await openHubStore(url);
      try {
        await first.setMeta("k", "from the first");
        expect(await second.getMeta("k")).toBe("from the first");
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it("says an unreachable server is to be started or the address fixed", async () => {
      const url = `postgres://hub:secret@127.0.0.1:${await closedPort()}/hub`;
      await refusal(
        openHubStore(url),
        /^cannot reach the PostgreSQL server at 127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it/,
      );
    });

    it("says a refused login is to be fixed, without showing the password", async () => {
      const wrong = admin!.replace(/:\/\/([^:]+):[^@]*@/, "://$1:wrong-password@");
      const error = (await openHubStore(wrong).catch((e: unknown) => e)) as Error;
      await refusal(Promise.reject(error), /refused user postgres .*fix the user and password in --store/);
      expect(error.message).not.toContain("wrong-password");
    });

    it("says a missing database is to be created", async () => {
      await refusal(
        openHubStore(withDatabase(admin!, "cardsim_no_such_db")),
        /database "cardsim_no_such_db" does not exist .*create it \(createdb cardsim_no_such_db\)/,
      );
    });

    it("refuses a database of a newer schema than this hub knows", async () => {
      const url = await createTestDatabase(admin!);
      await (await openHubStore(url)).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("INSERT INTO schema_version (version, applied) VALUES (999, 0)");
      await client.end();
      await refusal(openHubStore(url), /schema version 999 is newer than this cardsim understands/);
    });
  });
});
