import { decodeBase64, encodeBase64 } from "./base64.js";

/**
 * Public-key signatures, the port a module proves its identity with and the hub checks it with
 * (Ed25519: 32-byte keys, 64-byte signatures). `SeededCrypto` is deterministic under a seed
 * (tests, fleets, replays); the Node edge passes WebCrypto (runtime/WebCryptoCrypto.ts). Both
 * make and check the same signatures, so either end may use either.
 */
export interface Crypto {
  /** A new key pair: the private key (32 bytes, kept in the module's flash) and its public key. */
  generateKeyPair(): Promise<KeyPair>;
  /** The public key of a private key. */
  publicKeyOf(privateKey: Uint8Array): Promise<Uint8Array>;
  sign(privateKey: Uint8Array, message: Uint8Array): Promise<Uint8Array>;
  /** False for a bad signature or a malformed key or signature; never throws for bad input. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

export interface KeyPair {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

export const ED25519_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the 32 key bytes follow it. */
const SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

/** A public key as PEM text (`-----BEGIN PUBLIC KEY-----`), as Get Device Public Key serves it. */
export function publicKeyToPem(publicKey: Uint8Array): string {
  if (publicKey.length !== ED25519_KEY_BYTES) throw new Error("an Ed25519 public key has 32 bytes");
  const der = new Uint8Array(SPKI_PREFIX.length + publicKey.length);
  der.set(SPKI_PREFIX);
  der.set(publicKey, SPKI_PREFIX.length);
  const b64 = encodeBase64(der);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----\n`;
}

/** The 32 key bytes of an Ed25519 public key in PEM, or undefined when it is not one. */
export function publicKeyFromPem(pem: string): Uint8Array | undefined {
  const match = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/.exec(pem);
  if (!match) return undefined;
  const der = decodeBase64(match[1]!.replace(/\s+/g, ""));
  if (!der || der.length !== SPKI_PREFIX.length + ED25519_KEY_BYTES) return undefined;
  for (let i = 0; i < SPKI_PREFIX.length; i++) if (der[i] !== SPKI_PREFIX[i]) return undefined;
  return der.slice(SPKI_PREFIX.length);
}
