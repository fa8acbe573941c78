import { randomBytes as secureRandomBytes, randomUUID } from "node:crypto";
import { randomBytes, type Random } from "../core/Random.js";

/** Each byte's two hex digits (a UUID is made at every sync session: a table beats formatting). */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** The bytes of the seeded UUID being written (a Uint8Array keeps each byte's low 8 bits). */
const SCRATCH = new Uint8Array(16);

/**
 * Makes the hub's public identifiers (project, fleet, organization UIDs). Seeded in tests so runs
 * repeat; secrets (tokens, passwords) never come from here but from `secrets.ts`.
 */
export class HubIds {
  /** The last time UUID's milliseconds and counter (`timeUuid`). */
  #lastMs = Number.NEGATIVE_INFINITY;
  #sequence = 0;

  constructor(private readonly random?: Random) {}

  /** An RFC 4122 version-4 UUID. */
  uuid(): string {
    if (!this.random) return randomUUID();
    // randomBytes(random, 16)'s bytes, written into one buffer kept for it (a session makes three
    // or four): no array made a UUID.
    const b = SCRATCH;
    for (let i = 0; i < 16; i += 4) {
      const word = this.random.nextUint32();
      b[i] = word;
      b[i + 1] = word >>> 8;
      b[i + 2] = word >>> 16;
      b[i + 3] = word >>> 24;
    }
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    return uuidText(b);
  }

  /**
   * An RFC 9562 version-7 UUID for the time `ms` (the hub's clock): 48 bits of milliseconds, a
   * 12-bit counter, 62 random bits. Each sorts after the one made before it (in text too), even
   * when the clock stands still or steps back, so that rows keyed by it are appended to their
   * indexes rather than scattered over them (sync sessions: one a sync).
   */
  timeUuid(ms: number): string {
    const b = this.#randomBytes(16);
    if (ms > this.#lastMs) {
      this.#lastMs = Math.floor(ms);
      this.#sequence = ((b[6]! & 0x07) << 8) | b[7]!; // a random start in the counter's lower half
    } else if (++this.#sequence > 0xfff) {
      this.#lastMs++;
      this.#sequence = 0;
    }
    let time = this.#lastMs;
    for (let i = 5; i >= 0; i--) {
      b[i] = time % 256;
      time = Math.floor(time / 256);
    }
    b[6] = 0x70 | (this.#sequence >> 8);
    b[7] = this.#sequence & 0xff;
    b[8] = (b[8]! & 0x3f) | 0x80;
    return uuidText(b);
  }

  #randomBytes(length: number): Uint8Array {
    return this.random ? randomBytes(this.random, length) : secureRandomBytes(length);
  }

  /** `length` random bytes (sync challenges). */
  bytes(length: number): Uint8Array {
    return this.random ? randomBytes(this.random, length) : new Uint8Array(secureRandomBytes(length));
  }

  projectUid(): string {
    return `app:${this.uuid()}`;
  }

  fleetUid(): string {
    return `fleet:${this.uuid()}`;
  }
}

/** 16 bytes as a UUID's text: each byte's two hex digits, a dash before bytes 4, 6, 8 and 10. */
function uuidText(b: Uint8Array): string {
  let text = "";
  for (let i = 0; i < 16; i++) text += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + HEX[b[i]!];
  return text;
}
