import { expect, it } from "vitest";
import { expectToPassFromThePackedPackage } from "./support/packedProject.js";

// Issue 24, point 1: a scenario's hub checked and driven through its REST API (request, the
// helpers named after the API's operations, listen for real HTTP clients), from the tarball.
it("a firmware team's test of the scenario's hub API passes from the packed package in an empty project", async () => {
  const tests = await expectToPassFromThePackedPackage(
    "hub-api",
    ["test/harness/a-scenario-s-hub-answers-its-rest-api-in-process-and-on-a-loopback-port.test.ts"],
    6,
  );
  expect(tests.map((t) => t.name).join("\n")).toMatch(/loopback port/);
});
