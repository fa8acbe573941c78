import { ed25519 } from "@noble/curves/ed25519.js";
import { ED25519_KEY_BYTES, type Crypto, type KeyPair } from "./Crypto.js";
import { randomBytes, type Random } from "./Random.js";

/**
 * Ed25519 in plain JavaScript (@noble/curves), its keys drawn from a `Random`: the same seed
 * gives the same keys and signatures on every platform, which is what fake-clock tests, fleets
 * and replays need. Signatures are interchangeable with WebCrypto's.
 */
export class SeededCrypto implements Crypto {
  readonly #random: Random;

  constructor(random: Random) {
    this.#random = random;
  }

  async generateKeyPair(): Promise<KeyPair> {
    const privateKey = randomBytes(this.#random, ED25519_KEY_BYTES);
    return { privateKey, publicKey: ed25519.getPublicKey(privateKey) };
  }

  async publicKeyOf(privateKey: Uint8Array): Promise<Uint8Array> {
    return ed25519.getPublicKey(privateKey);
  }

  async sign(privateKey: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
    return ed25519.sign(message, privateKey);
  }

  async verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    try {
      return ed25519.verify(signature, message, publicKey);
    } catch {
      return false;
    }
  }
}
