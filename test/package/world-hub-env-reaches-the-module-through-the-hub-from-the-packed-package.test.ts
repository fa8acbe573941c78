import { it } from "vitest";
import { expectToPassFromThePackedPackage } from "./support/packedProject.js";

// Issue 24, point 2: world.hubEnv sets a present hub's variables, which reach the module by sync.
it("a firmware team's test of world.hubEnv with and without a hub passes from the packed package", async () => {
  await expectToPassFromThePackedPackage(
    "hub-env",
    [
      "test/harness/world-hub-env-sets-the-hub-s-variables-when-there-is-a-hub-and-they-reach-the-module-by-sync.test.ts",
    ],
    3,
  );
});
