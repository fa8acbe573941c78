import { describe, expect, it } from "vitest";
import { SeededCrypto } from "../../core/SeededCrypto.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { SeededNodeCrypto } from "../../runtime/SeededNodeCrypto.js";

const encoder = new TextEncoder();

describe("SeededNodeCrypto", () => {
  it.each([1, 2, "module-7", "fleet-42/keys/boot0", "bench"])(
    "under seed %s makes the keys and signatures SeededCrypto makes",
    async (seed) => {
      const js = new SeededCrypto(new SeededRandom(seed));
      const native = new SeededNodeCrypto(new SeededRandom(seed));
      for (let pair = 0; pair < 3; pair++) {
        const a = await js.generateKeyPair();
        const b = await native.generateKeyPair();
        expect(b).toEqual(a);
        expect(await native.publicKeyOf(a.privateKey)).toEqual(a.publicKey);
        for (const text of ["", "dev:864475040512345 challenge", `pair ${pair} of ${String(seed)}`]) {
          const message = encoder.encode(text);
          const signature = await native.sign(b.privateKey, message);
          expect(signature).toEqual(await js.sign(a.privateKey, message));
          expect(await js.verify(a.publicKey, message, signature)).toBe(true);
          expect(await native.verify(b.publicKey, message, signature)).toBe(true);
        }
      }
    },
  );

  it("refuses a changed message, another key and malformed input without throwing", async () => {
    const crypto = new SeededNodeCrypto(new SeededRandom(9));
    const keys = await crypto.generateKeyPair();
    const other = await crypto.generateKeyPair();
    const message = encoder.encode("session");
    const signature = await crypto.sign(keys.privateKey, message);
    expect(await crypto.verify(keys.publicKey, encoder.encode("sessioN"), signature)).toBe(false);
    expect(await crypto.verify(other.publicKey, message, signature)).toBe(false);
    expect(await crypto.verify(keys.publicKey, message, signature.slice(1))).toBe(false);
    expect(await crypto.verify(new Uint8Array(31), message, signature)).toBe(false);
    expect(await crypto.verify(new Uint8Array(32), message, new Uint8Array(64))).toBe(false);
  });

  it("without randomness verifies and signs but refuses to make keys", async () => {
    const keys = await new SeededCrypto(new SeededRandom(3)).generateKeyPair();
    const verifier = new SeededNodeCrypto();
    const signature = await verifier.sign(keys.privateKey, encoder.encode("x"));
    expect(await verifier.verify(keys.publicKey, encoder.encode("x"), signature)).toBe(true);
    await expect(verifier.generateKeyPair()).rejects.toThrow(/no randomness/);
  });
});
