import { it } from "vitest";
import { expectToPassFromThePackedPackage } from "./support/packedProject.js";

// Issue 24, point 4: finish() takes the test's own requests as expected; expectHostRequest and
// ignore take one shape.
it("a firmware team's test of finish(), expectHostRequest and ignore passes from the packed package", async () => {
  await expectToPassFromThePackedPackage(
    "finish",
    [
      "test/harness/finish-takes-the-test-s-own-host-requests-as-expected-and-expectations-and-ignores-take-one-shape.test.ts",
    ],
    4,
  );
});
