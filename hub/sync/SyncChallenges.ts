import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from "node:crypto";
import { decodeBase64, encodeBase64 } from "../../core/base64.js";

/** What a challenge carries besides its proof: the bytes of the `hello` exchange that made it. */
export interface ChallengeExchange {
  /** Bytes of the `hello` request and of its reply (counted in the session `open` starts). */
  readonly sent: number;
  readonly received: number;
}

/**
 * The challenges spent by a successful `open`, until they expire: in memory for one hub process,
 * in the store for several (ClusterStore), so that a challenge opens one session whichever
 * process is answered.
 */
export interface SpentChallenges {
  has(challenge: string): Promise<boolean>;
  /** Spends it (in the caller's transaction); false when it was spent already. */
  spend(challenge: string, expires: number): Promise<boolean>;
  prune(now: number): Promise<void>;
}

/** The spent challenges of one hub process. */
export class SpentInMemory implements SpentChallenges {
  readonly #spent = new Map<string, number>();

  async has(challenge: string): Promise<boolean> {
    return this.#spent.has(challenge);
  }

  async spend(challenge: string, expires: number): Promise<boolean> {
    if (this.#spent.has(challenge)) return false;
    this.#spent.set(challenge, expires);
    return true;
  }

  async prune(now: number): Promise<void> {
    for (const [challenge, expires] of this.#spent) if (expires < now) this.#spent.delete(challenge);
  }
}

const VERSION = 1;
const NONCE_BYTES = 15;
const MAC_BYTES = 16;
/** version, nonce, expiry (float64 ms), sent, received (uint32 each), MAC: 48 bytes, 64 base64 characters. */
const BODY_BYTES = 1 + NONCE_BYTES + 8 + 4 + 4;
const TOTAL_BYTES = BODY_BYTES + MAC_BYTES;
/** The length of every challenge's text (a reply's size can be known before its challenge is). */
export const CHALLENGE_TEXT_LENGTH = (TOTAL_BYTES / 3) * 4;

/**
 * The `hello` challenges, kept by the hub without any state per `hello`: each challenge is sealed
 * with a key of this hub run (an HMAC over the challenge, the device and the product it was given
 * to, its expiry and its exchange's bytes), so any number of hellos, from anyone, can neither fill
 * the hub's memory nor push out the challenge a device is about to answer. An `open` names its
 * challenge; the hub checks the seal, the device, the product and the expiry. A challenge is
 * single-use: it is spent when an `open` proves possession of the device's key with it (only such
 * opens are remembered, until the challenge would have expired). A restarted hub has a new key:
 * its earlier challenges are unknown. Hub processes over one shared store seal with one key kept
 * in the store (`useKey` before the first message), and spend challenges in it.
 */
export class SyncChallenges {
  /** Prepared once: an HMAC keyed with a KeyObject skips the key's import at every challenge. */
  #key: KeyObject;

  constructor(
    readonly ttlMs: number,
    key: Uint8Array = new Uint8Array(randomBytes(32)),
    /** Challenges spent by a successful `open`, until they expire. */
    readonly spent: SpentChallenges = new SpentInMemory(),
  ) {
    this.#key = createSecretKey(key);
  }

  /** Seals and checks with `key` from now on (the key every process over a shared store uses). */
  useKey(key: Uint8Array): void {
    this.#key = createSecretKey(key);
  }

  /** A new challenge for the device and product, good until `now + ttlMs`. */
  issue(
    device: string,
    product: string,
    now: number,
    nonce: Uint8Array,
    exchange: ChallengeExchange,
  ): string {
    const body = new Uint8Array(TOTAL_BYTES);
    const view = new DataView(body.buffer);
    body[0] = VERSION;
    body.set(nonce.subarray(0, NONCE_BYTES), 1);
    view.setFloat64(1 + NONCE_BYTES, now + this.ttlMs);
    view.setUint32(1 + NONCE_BYTES + 8, clampU32(exchange.sent));
    view.setUint32(1 + NONCE_BYTES + 12, clampU32(exchange.received));
    body.set(this.#mac(body.subarray(0, BODY_BYTES), device, product), BODY_BYTES);
    return encodeBase64(body);
  }

  /**
   * The exchange of a challenge this hub gave to this device for this product, still good (not
   * expired, not spent), with its expiry; undefined for anything else.
   */
  async check(
    challenge: string,
    device: string,
    product: string,
    now: number,
  ): Promise<(ChallengeExchange & { expires: number }) | undefined> {
    if (challenge.length !== CHALLENGE_TEXT_LENGTH) return undefined;
    const body = decodeBase64(challenge);
    if (!body || body.length !== TOTAL_BYTES || body[0] !== VERSION) return undefined;
    const mac = this.#mac(body.subarray(0, BODY_BYTES), device, product);
    if (!timingSafeEqual(mac, body.subarray(BODY_BYTES))) return undefined;
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const expires = view.getFloat64(1 + NONCE_BYTES);
    if (!(expires >= now) || (await this.spent.has(challenge))) return undefined;
    return {
      expires,
      sent: view.getUint32(1 + NONCE_BYTES + 8),
      received: view.getUint32(1 + NONCE_BYTES + 12),
    };
  }

  /** The challenge was answered: it opens nothing more. False when it had been spent already. */
  spend(challenge: string, expires: number): Promise<boolean> {
    return this.spent.spend(challenge, expires);
  }

  /** Forgets spent challenges that expired (they are refused for their expiry anyway). */
  prune(now: number): Promise<void> {
    return this.spent.prune(now);
  }

  #mac(body: Uint8Array, device: string, product: string): Uint8Array {
    const hmac = createHmac("sha256", this.#key);
    hmac.update(body);
    hmac.update(`\n${device}\n${product}`);
    return new Uint8Array(hmac.digest().subarray(0, MAC_BYTES));
  }
}

function clampU32(n: number): number {
  return Math.max(0, Math.min(0xffff_ffff, Math.floor(n)));
}
