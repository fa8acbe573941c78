import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Secrets: access tokens, OAuth client secrets and passwords. Tokens carry 256 random bits, so a
 * fast hash (SHA-256) is enough to store them; passwords are chosen by people and get scrypt.
 */

/** A new random secret with a readable prefix, e.g. `cardsim_pat_...`. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/** What the store keeps of a token or client secret. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A readable random password for the bootstrap admin. */
export function newPassword(): string {
  return randomBytes(18).toString("base64url");
}

// scrypt cost: N = 2^15, r = 8 (32 MiB per hash), the OWASP-recommended minimum for scrypt.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 128 * N * R * 2;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password,
      salt,
      KEY_LENGTH,
      { N: n, r, p, maxmem: Math.max(MAX_MEMORY, 128 * n * r * 2) },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** A stored hash of a password nobody knows, so unknown users cost as much time as known ones. */
export const UNUSABLE_PASSWORD_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString("base64url")}$${Buffer.alloc(KEY_LENGTH).toString("base64url")}`;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![n, r, p].every((x) => Number.isInteger(x) && x > 0)) return false;
  const salt = Buffer.from(parts[4]!, "base64url");
  const expected = Buffer.from(parts[5]!, "base64url");
  const key = await derive(password, salt, n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
