import { webcrypto } from "node:crypto";
import type { Crypto, KeyPair } from "../core/Crypto.js";

const { subtle } = webcrypto;
const ED25519 = { name: "Ed25519" } as const;
/** The DER prefix of an Ed25519 PKCS #8 private key (RFC 8410): the 32 seed bytes follow it. */
const PKCS8_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);

function pkcs8(privateKey: Uint8Array): Uint8Array {
  const der = new Uint8Array(PKCS8_PREFIX.length + privateKey.length);
  der.set(PKCS8_PREFIX);
  der.set(privateKey, PKCS8_PREFIX.length);
  return der;
}

/** Ed25519 from the platform's WebCrypto, with keys from the operating system's randomness. */
export class WebCryptoCrypto implements Crypto {
  async generateKeyPair(): Promise<KeyPair> {
    const pair = (await subtle.generateKey(ED25519, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const der = new Uint8Array(await subtle.exportKey("pkcs8", pair.privateKey));
    const publicKey = new Uint8Array(await subtle.exportKey("raw", pair.publicKey));
    return { privateKey: der.slice(PKCS8_PREFIX.length), publicKey };
  }

  async publicKeyOf(privateKey: Uint8Array): Promise<Uint8Array> {
    const key = await subtle.importKey("pkcs8", pkcs8(privateKey), ED25519, true, ["sign"]);
    const jwk = await subtle.exportKey("jwk", key);
    return new Uint8Array(Buffer.from(jwk.x!, "base64url"));
  }

  async sign(privateKey: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
    const key = await subtle.importKey("pkcs8", pkcs8(privateKey), ED25519, false, ["sign"]);
    return new Uint8Array(await subtle.sign(ED25519, key, message));
  }

  async verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    try {
      const key = await subtle.importKey("raw", publicKey, ED25519, false, ["verify"]);
      return await subtle.verify(ED25519, key, signature, message);
    } catch {
      return false;
    }
  }
}
