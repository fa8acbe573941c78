// What an `open` is let in by that is decided without waiting on anything (hub/sync/SessionOpening).
import { publicKeyFromPem } from "../../core/Crypto.js";
import { SYNC_ERRORS, type ProtocolReply, type SessionContext } from "../../protocol/messages.js";
import type { DeviceRecord } from "../store/records.js";
import { sameKey, type TicketClaim } from "./SessionTickets.js";
import { refusal } from "./SyncRefusal.js";

const TICKET_FOR_ANOTHER_KEY = "the session ticket was issued for another key of the device";

/** What the module reports is what the hub holds, or it reports nothing of it. */
function same<T>(value: T | undefined, held: T): boolean {
  return value === undefined || value === held;
}

/**
 * Most opens are of a known device with its key that reports what the hub holds: nothing to
 * register (the device service would read the product and the device again to find that).
 */
export function reportsWhatIsHeld(context: SessionContext, known: DeviceRecord | undefined): boolean {
  if (!known?.publicKey) return false;
  return (
    same(context.sku, known.sku) &&
    JSON.stringify(context.firmware) === known.firmwareModule &&
    same(context.sn, known.serialNumber)
  );
}

/** Resumed: the ticket stands for the proof as long as the device keeps the key it proved. */
export function resumedKey(
  pending: { readonly ticket: TicketClaim },
  device: DeviceRecord | undefined,
): string | ProtocolReply {
  const storedKey = device?.publicKey ?? null;
  if (!sameKey(pending.ticket, storedKey)) {
    return refusal(SYNC_ERRORS.ticket, `${TICKET_FOR_ANOTHER_KEY}: prove the key again (say hello)`);
  }
  return storedKey!;
}

/** The refusal of a device without a pinned key (or another key than its pinned one), pinned mode. */
export function notPinned(device: string, projectUid: string): ProtocolReply {
  return refusal(
    SYNC_ERRORS.auth,
    `the hub takes only pinned keys and ${device}'s pinned key did not sign this: pin it with PUT /v1/projects/${projectUid}/devices/${device}/public-key (cardsim module --print-key prints it)`,
  );
}

/** The bytes of a key the hub stored (checked when it was stored). */
export function storedKeyBytes(pem: string): { key: Uint8Array; pem: string } | { fault: string } {
  const key = publicKeyFromPem(pem);
  return key ? { key, pem } : { fault: "stored for the device cannot be read" };
}
