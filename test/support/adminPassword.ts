import { hashPassword, newPassword } from "../../hub/auth/secrets.js";
import type { AdminPassword } from "../../hub/bootstrap.js";

let adminSecret: Promise<AdminPassword> | undefined;

/**
 * The admin password of every test hub in this worker: hashed once (scrypt costs a fifth of a
 * second of CPU on purpose), not at every hub a test makes. Signing in with it works as with a
 * new one; the tests of the hashing itself make their own.
 */
export function testAdminPassword(): Promise<AdminPassword> {
  const password = newPassword();
  return (adminSecret ??= hashPassword(password).then((hash) => ({ password, hash })));
}
