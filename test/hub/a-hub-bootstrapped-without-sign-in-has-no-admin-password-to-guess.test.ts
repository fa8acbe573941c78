import { expect, it } from "vitest";
import { SeededRandom } from "../../core/SeededRandom.js";
import { verifyPassword } from "../../hub/auth/secrets.js";
import { bootstrapHub, DEFAULT_ADMIN, NO_SIGN_IN } from "../../hub/bootstrap.js";
import { HubIds } from "../../hub/HubIds.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { describeOnBackends, openTestStore } from "../support/backends.js";

// An in-process hub (a scenario's, a test's) is reached with its token only: its admin gets no
// password, so nobody can sign in as it and no scrypt hash is paid at every hub a test makes.
describeOnBackends("a hub bootstrapped without sign-in", (backend) => {
  it("has an admin no password opens, and still a token", async () => {
    const store = await openTestStore(backend);
    const made = await bootstrapHub(store, new HubIds(new SeededRandom(3)), new FakeClock(), NO_SIGN_IN);
    const admin = await store.accounts.getUserByUsername(DEFAULT_ADMIN);
    expect(made.password).toBe("");
    expect(made.token).toMatch(/^\S{20,}$/);
    for (const guess of ["", "admin", made.password])
      expect(await verifyPassword(guess, admin!.passwordHash)).toBe(false);
    await store.close();
  });

  it("has a password that opens it by default", async () => {
    const store = await openTestStore(backend);
    const made = await bootstrapHub(store, new HubIds(new SeededRandom(3)), new FakeClock());
    const admin = await store.accounts.getUserByUsername(DEFAULT_ADMIN);
    expect(await verifyPassword(made.password, admin!.passwordHash)).toBe(true);
    await store.close();
  });
});
