import fc from "fast-check";

/**
 * Property tests run from a fixed seed so that a run repeats exactly (CI and laptops alike).
 * FC_SEED=<n> picks another seed, FC_SEED=random a fresh one each run (to explore more cases);
 * a failure prints the seed and path that reproduce it.
 */
const configured = process.env["FC_SEED"];
if (configured !== "random") {
  fc.configureGlobal({ seed: configured === undefined ? 0x5eed : Number(configured) });
}
