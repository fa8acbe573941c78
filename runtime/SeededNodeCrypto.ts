import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { ED25519_KEY_BYTES, ED25519_SIGNATURE_BYTES, type Crypto, type KeyPair } from "../core/Crypto.js";
import { randomBytes, type Random } from "../core/Random.js";

/** The DER prefix of an Ed25519 PKCS #8 private key (RFC 8410): the 32 seed bytes follow it. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the 32 key bytes follow it. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Raw Ed25519 keys become key objects through JWK (RFC 8037), about ten times cheaper than
 * through DER here (OpenSSL 3's DER decoders cost ~450 µs a private key, ~90 µs a public one,
 * the most of a fleet module's boot); DER stays as the way should a Node refuse the JWK. A
 * private JWK's `x` is not read (the public key is derived from `d`), so it is left empty.
 */
function privateKeyObject(raw: Uint8Array): KeyObject {
  const d = Buffer.from(raw).toString("base64url");
  try {
    return createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", d, x: "" }, format: "jwk" });
  } catch {
    return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: "der", type: "pkcs8" });
  }
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  const x = Buffer.from(raw).toString("base64url");
  try {
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  } catch {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
  }
}
/** Key objects kept per key (a module signs with one key all its life; a hub checks a fleet's). */
const MAX_CACHED_KEYS = 4096;

/** The key object of `raw`, made by `make` once and kept in `cache`. */
function keyObject(
  cache: Map<string, KeyObject>,
  raw: Uint8Array,
  make: (raw: Uint8Array) => KeyObject,
): KeyObject {
  const id = Buffer.from(raw).toString("base64");
  let key = cache.get(id);
  if (!key) {
    key = make(raw);
    if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!);
    cache.set(id, key);
  }
  return key;
}

/**
 * Ed25519 from Node's native crypto, its keys drawn from a `Random` exactly as `SeededCrypto`
 * draws them: the same seed gives the same keys, and (Ed25519 signing being deterministic) the
 * same signatures, at a fraction of the cost of the JavaScript implementation. In-process worlds
 * on a fake clock (the harness, fleets, benchmarks) use it; firmware gets it injected.
 */
export class SeededNodeCrypto implements Crypto {
  readonly #random: Random;
  readonly #privateKeys = new Map<string, KeyObject>();
  readonly #publicKeys = new Map<string, KeyObject>();

  /** Without a `Random`, it can sign and verify but not make keys (a hub only verifies). */
  constructor(random?: Random) {
    this.#random = random ?? {
      nextUint32: () => {
        throw new Error("SeededNodeCrypto: no randomness to make keys with");
      },
    };
  }

  #privateKey(privateKey: Uint8Array): KeyObject {
    if (privateKey.length !== ED25519_KEY_BYTES) throw new Error("an Ed25519 private key has 32 bytes");
    return keyObject(this.#privateKeys, privateKey, privateKeyObject);
  }

  #publicKey(publicKey: Uint8Array): KeyObject {
    return keyObject(this.#publicKeys, publicKey, publicKeyObject);
  }

  async generateKeyPair(): Promise<KeyPair> {
    const privateKey = randomBytes(this.#random, ED25519_KEY_BYTES);
    return { privateKey, publicKey: await this.publicKeyOf(privateKey) };
  }

  async publicKeyOf(privateKey: Uint8Array): Promise<Uint8Array> {
    const { x } = createPublicKey(this.#privateKey(privateKey)).export({ format: "jwk" });
    return new Uint8Array(Buffer.from(x!, "base64url"));
  }

  async sign(privateKey: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(sign(null, message, this.#privateKey(privateKey)));
  }

  async verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (publicKey.length !== ED25519_KEY_BYTES || signature.length !== ED25519_SIGNATURE_BYTES) return false;
    try {
      return verify(null, message, this.#publicKey(publicKey), signature);
    } catch {
      return false;
    }
  }
}
