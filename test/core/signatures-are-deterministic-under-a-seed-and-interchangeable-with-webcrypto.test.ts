import { createPublicKey } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { publicKeyFromPem, publicKeyToPem } from "../../core/Crypto.js";
import { SeededCrypto } from "../../core/SeededCrypto.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { WebCryptoCrypto } from "../../runtime/WebCryptoCrypto.js";

const message = new TextEncoder().encode("session 1 of dev:864475040512345");

describe("the Crypto port", () => {
  it("gives the same keys and signatures for the same seed", async () => {
    const a = new SeededCrypto(new SeededRandom("module-7"));
    const b = new SeededCrypto(new SeededRandom("module-7"));
    const ka = await a.generateKeyPair();
    const kb = await b.generateKeyPair();
    expect(ka).toEqual(kb);
    expect(await a.sign(ka.privateKey, message)).toEqual(await b.sign(kb.privateKey, message));
    const other = await new SeededCrypto(new SeededRandom("module-8")).generateKeyPair();
    expect(other.publicKey).not.toEqual(ka.publicKey);
  });

  it("signs and verifies the same way in plain JavaScript and through WebCrypto", async () => {
    const seeded = new SeededCrypto(new SeededRandom(1));
    const web = new WebCryptoCrypto();
    for (const [maker, checker] of [
      [seeded, web],
      [web, seeded],
    ] as const) {
      const keys = await maker.generateKeyPair();
      expect(await checker.publicKeyOf(keys.privateKey)).toEqual(keys.publicKey);
      const signature = await maker.sign(keys.privateKey, message);
      expect(signature).toHaveLength(64);
      expect(await checker.sign(keys.privateKey, message)).toEqual(signature);
      expect(await checker.verify(keys.publicKey, message, signature)).toBe(true);
    }
  });

  it("refuses a changed message, another key and malformed input without throwing", async () => {
    for (const crypto of [new SeededCrypto(new SeededRandom(2)), new WebCryptoCrypto()]) {
      const keys = await crypto.generateKeyPair();
      const stranger = await crypto.generateKeyPair();
      const signature = await crypto.sign(keys.privateKey, message);
      expect(await crypto.verify(keys.publicKey, new TextEncoder().encode("another"), signature)).toBe(false);
      expect(await crypto.verify(stranger.publicKey, message, signature)).toBe(false);
      expect(await crypto.verify(new Uint8Array(3), message, signature)).toBe(false);
      expect(await crypto.verify(keys.publicKey, message, new Uint8Array(10))).toBe(false);
    }
  });

  it("any flipped bit of message or signature fails verification", async () => {
    const crypto = new SeededCrypto(new SeededRandom(3));
    const keys = await crypto.generateKeyPair();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), async (bytes, n) => {
        const signature = await crypto.sign(keys.privateKey, bytes);
        expect(await crypto.verify(keys.publicKey, bytes, signature)).toBe(true);
        const flippedMessage = bytes.slice();
        flippedMessage[n % bytes.length]! ^= 1 << (n % 8);
        expect(await crypto.verify(keys.publicKey, flippedMessage, signature)).toBe(false);
        const flippedSignature = signature.slice();
        flippedSignature[n % 64]! ^= 1 << (n % 8);
        expect(await crypto.verify(keys.publicKey, bytes, flippedSignature)).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it("writes public keys as PEM that OpenSSL reads, and reads them back", async () => {
    const keys = await new SeededCrypto(new SeededRandom(4)).generateKeyPair();
    const pem = publicKeyToPem(keys.publicKey);
    const jwk = createPublicKey(pem).export({ format: "jwk" });
    expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(Buffer.from(jwk.x!, "base64url")).toEqual(Buffer.from(keys.publicKey));
    expect(publicKeyFromPem(pem)).toEqual(keys.publicKey);
    expect(publicKeyFromPem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")).toBeUndefined();
    expect(publicKeyFromPem("not a key")).toBeUndefined();
  });
});
