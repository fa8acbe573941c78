import { randomBytes as secureRandomBytes, randomUUID } from "node:crypto";
import { randomBytes, type Random } from "../core/Random.js";

/** Each byte's two hex digits (a UUID is made at every sync session: a table beats formatting). */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Makes the hub's public identifiers (project, fleet, organization UIDs). Seeded in tests so runs
 * repeat; secrets (tokens, passwords) never come from here but from `secrets.ts`.
 */
export class HubIds {
  constructor(private readonly random?: Random) {}

  /** An RFC 4122 version-4 UUID. */
  uuid(): string {
    if (!this.random) return randomUUID();
    const b = randomBytes(this.random, 16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    let hex = "";
    for (const x of b) hex += HEX[x];
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
