import {
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from "node:crypto";
import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import { publicKeyFromPem } from "../../core/Crypto.js";

const VERSION = 1;
const KEY_ID_BYTES = 4;
const KEY_HASH_BYTES = 16;
const MAC_BYTES = 16;
/** version, the ticket key's id, expiry (float64 ms), the device key's hash; then the MAC. */
const BODY_BYTES = 1 + KEY_ID_BYTES + 8 + KEY_HASH_BYTES;
const TOTAL_BYTES = BODY_BYTES + MAC_BYTES;
/** Length of every ticket's text (45 bytes in base64). */
export const TICKET_TEXT_LENGTH = Math.ceil(TOTAL_BYTES / 3) * 4;

/** A ticket that checks: good until `expires` for a device whose key hashes to `keyHash`. */
export interface TicketClaim {
  readonly expires: number;
  readonly keyHash: Uint8Array;
}

/**
 * Session tickets (docs/sync-protocol.md, "Resumed sessions"): an `open` that proved the device's
 * key with a signature is answered a ticket, which later opens present instead of a `hello` and
 * a signature until it expires. The hub keeps no state per ticket: each is sealed with a key
 * (an HMAC over the ticket, the device and the product it was given to), and carries its expiry
 * and a hash of the device's public key it was proven with, so a ticket stops opening as soon as
 * the device's key changes. A hub with another key (a restart with a fresh one) refuses every
 * earlier ticket, and says so: each ticket names its key by a short id.
 *
 * The key is a constructor parameter, as `SyncChallenges`' is; hub processes that share one
 * store take the one kept in it (`useKey`, before the first message), so a ticket one process
 * issued opens on every other.
 */
export class SessionTickets {
  #key!: KeyObject;
  #keyId!: Uint8Array;
  /**
   * The last ticket that checked per device (and the product it was for), with its claim: a module presents the
   * same ticket at every session until it expires, and its seal need not be made again (an HMAC
   * a session). Only the seal is remembered: the expiry is checked at every open.
   */
  readonly #checked = new Map<
    string,
    { readonly product: string; readonly ticket: string; readonly claim: TicketClaim }
  >();

  constructor(
    readonly ttlMs: number,
    key: Uint8Array = new Uint8Array(randomBytes(32)),
  ) {
    this.useKey(key);
  }

  /** Seals and checks with `key` from now on (the key every process over a shared store uses). */
  useKey(key: Uint8Array): void {
    this.#key = createSecretKey(key);
    this.#checked.clear();
    this.#keyId = new Uint8Array(createHash("sha256").update(key).digest().subarray(0, KEY_ID_BYTES));
  }

  /** A ticket for the device and product, proven with the key `pem`, good until `expires`. */
  issue(device: string, product: string, pem: string, expires: number): string | undefined {
    const keyHash = hashKey(pem);
    if (!keyHash) return undefined;
    const body = new Uint8Array(TOTAL_BYTES);
    body[0] = VERSION;
    body.set(this.#keyId, 1);
    new DataView(body.buffer).setFloat64(1 + KEY_ID_BYTES, expires);
    body.set(keyHash, 1 + KEY_ID_BYTES + 8);
    body.set(this.#mac(body.subarray(0, BODY_BYTES), device, product), BODY_BYTES);
    return encodeBase64(body);
  }

  /**
   * What a ticket claims once its seal, device, product and expiry check; else why it is refused
   * (a text for the `{ticket}` refusal).
   */
  check(ticket: string, device: string, product: string, now: number): TicketClaim | string {
    const known = this.#checked.get(device);
    if (known && known.product === product && sameText(known.ticket, ticket)) {
      return known.claim.expires >= now ? known.claim : "the session ticket has expired";
    }
    const claim = this.#seal(ticket, device, product);
    if (typeof claim === "string") return claim;
    if (this.#checked.size >= MAX_CHECKED) this.#checked.delete(this.#checked.keys().next().value!);
    this.#checked.delete(device);
    this.#checked.set(device, { product, ticket, claim });
    return claim.expires >= now ? claim : "the session ticket has expired";
  }

  /** What a ticket claims once its seal, device and product check (its expiry unchecked). */
  #seal(ticket: string, device: string, product: string): TicketClaim | string {
    const body = ticket.length === TICKET_TEXT_LENGTH ? decodeBase64(ticket) : undefined;
    if (!body || body.length !== TOTAL_BYTES || body[0] !== VERSION)
      return "the session ticket cannot be read";
    if (!timingSafeEqual(body.subarray(1, 1 + KEY_ID_BYTES), this.#keyId)) {
      return "the session ticket was issued under another key of the hub (it restarted or rotated its key)";
    }
    const mac = this.#mac(body.subarray(0, BODY_BYTES), device, product);
    if (!timingSafeEqual(mac, body.subarray(BODY_BYTES))) {
      return "the session ticket was not issued to this device and product";
    }
    const expires = new DataView(body.buffer, body.byteOffset, body.byteLength).getFloat64(1 + KEY_ID_BYTES);
    if (!(expires >= 0)) return "the session ticket has expired";
    return { expires, keyHash: body.slice(1 + KEY_ID_BYTES + 8, BODY_BYTES) };
  }

  #mac(body: Uint8Array, device: string, product: string): Uint8Array {
    const hmac = createHmac("sha256", this.#key);
    hmac.update(body);
    hmac.update(`\nticket\n${device}\n${product}`);
    return new Uint8Array(hmac.digest().subarray(0, MAC_BYTES));
  }
}

/**
 * Whether two texts are the same, in a time that does not tell where they differ (as
 * `timingSafeEqual` of their bytes, without making a Buffer of the ticket at every open).
 */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** Devices whose last checked ticket is remembered, at most. */
const MAX_CHECKED = 10_000;

/** Key hashes of the PEMs seen lately: a resumed open checks its device's stored key at every session. */
const hashes = new Map<string, Uint8Array | undefined>();
const MAX_HASHES = 10_000;

/** The hash a ticket binds the device's key with (of the key's bytes: any spelling of its PEM). */
export function hashKey(pem: string): Uint8Array | undefined {
  if (hashes.has(pem)) return hashes.get(pem);
  const key = publicKeyFromPem(pem);
  const hash = key && new Uint8Array(createHash("sha256").update(key).digest().subarray(0, KEY_HASH_BYTES));
  if (hashes.size >= MAX_HASHES) hashes.delete(hashes.keys().next().value!);
  hashes.set(pem, hash);
  return hash;
}

/** True when the ticket's key hash is that of `pem`. */
export function sameKey(claim: TicketClaim, pem: string | null | undefined): boolean {
  const hash = pem ? hashKey(pem) : undefined;
  return hash !== undefined && timingSafeEqual(hash, claim.keyHash);
}
