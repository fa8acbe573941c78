import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SHARED_DIR } from "./support/OpenApiContract.js";
import { TestHub } from "./support/hubFixture.js";

const DEFINITION = join(SHARED_DIR, "notehub-api/notehub-openapi.yaml");
const PAGE = fileURLToPath(new URL("../../docs/differences.md", import.meta.url));
const present = existsSync(DEFINITION);
const SKIP = `the hub's OpenAPI definition is not at ${DEFINITION}: the check of docs/differences.md's list of operations not served is skipped`;
if (!present) console.warn(SKIP);

/** The operationIds docs/differences.md lists between its not-served markers. */
function listedAsNotServed(): string[] {
  const text = readFileSync(PAGE, "utf8");
  const section = /<!-- not-served:start -->([\s\S]*?)<!-- not-served:end -->/.exec(text)?.[1] ?? "";
  return [...section.matchAll(/^\| [^|]+ \| `(\w+)` \|/gm)].map((m) => m[1]!).sort();
}

describe.skipIf(!present)(
  "docs/differences.md lists exactly the API operations the hub does not serve",
  () => {
    let hub: TestHub;

    beforeAll(async () => {
      hub = await TestHub.start();
    });

    afterAll(async () => {
      await hub.close();
    });

    it("every operation of the definition is either served by a route of the hub or listed", () => {
      const definition = parse(readFileSync(DEFINITION, "utf8")) as {
        paths: Record<string, Record<string, { operationId?: string }>>;
      };
      const notServed: string[] = [];
      let served = 0;
      for (const [path, operations] of Object.entries(definition.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (!["get", "post", "put", "delete", "patch"].includes(method)) continue;
          const url = path.replace(/\{([^}]+)\}/g, ":$1");
          if (hub.app.hasRoute({ method: method.toUpperCase() as "GET", url })) served++;
          else notServed.push(operation.operationId ?? `${method} ${path}`);
        }
      }
      expect(served).toBeGreaterThan(50); // the comparison finds the routes it should
      expect(listedAsNotServed()).toEqual(notServed.sort());
    });
  },
);

describe.runIf(!present)("the check of docs/differences.md's operations not served", () => {
  it("is skipped without the shared reference data, and fails under CI", () => {
    expect(process.env["CI"] === "true", SKIP).toBe(false);
  });
});
