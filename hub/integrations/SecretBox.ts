import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** Bytes of the key (AES-256). */
export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1:";

/**
 * Project secrets encrypted at rest: AES-256-GCM under the hub's key (a file in the hub's
 * directory: runtime/secretKey.ts), a fresh nonce per value, and the project and name as
 * associated data, so a ciphertext copied onto another secret's row does not open.
 * Stored as `v1:` then base64 of nonce, tag and ciphertext.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== SECRET_KEY_BYTES) {
      throw new Error(`the secrets key must be ${SECRET_KEY_BYTES} bytes, got ${key.length}`);
    }
    this.#key = Buffer.from(key);
  }

  seal(projectUid: string, name: string, value: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(`${projectUid}\n${name}`));
    const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  /** The value, or undefined when the ciphertext does not open under this key (another hub's key). */
  open(projectUid: string, name: string, sealed: string): string | undefined {
    if (!sealed.startsWith(VERSION)) return undefined;
    const bytes = Buffer.from(sealed.slice(VERSION.length), "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`${projectUid}\n${name}`));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}

/** A key for a hub that was given none (an in-memory hub): its secrets last as long as the process. */
export function ephemeralSecretKey(): Uint8Array {
  return randomBytes(SECRET_KEY_BYTES);
}
