import type { ChangeBatch, OpenReply, OpenRequest, PushReply } from "../../protocol/messages.js";
import type { DeviceRecord } from "../store/records.js";
import type { SessionRecords, SyncTransport } from "./SessionRecords.js";
import type { SyncSession } from "./SyncSessions.js";

/** What the folded messages of an `open` need of the sync service. */
export interface FoldParts {
  readonly records: SessionRecords;
  /** Merges a batch of the module's changes (SessionTransfers' `push`), for opens that carry one. */
  readonly push: (
    session: SyncSession,
    device: DeviceRecord,
    batch: ChangeBatch,
    transport: SyncTransport,
  ) => Promise<PushReply>;
}

/** The session an open began, how it came, and its size. */
interface Opened {
  readonly session: SyncSession;
  readonly device: DeviceRecord;
  readonly transport: SyncTransport;
  readonly bytes: number;
}

/**
 * The `push` and `close` an open carries (docs/sync-protocol.md, "Folded messages"), in the open's
 * transaction: the push is merged unless the open reset the trackers or lists deleted notefiles
 * (the module then pushes after applying them); the session closes with the open when nothing
 * else is for the module this session. Counts the open, and answers its reply with what was taken.
 */
export async function foldedMessages(
  p: FoldParts,
  request: OpenRequest,
  opened: OpenReply,
  s: Opened,
): Promise<OpenReply> {
  const clear = !opened.reset && opened.deleted === undefined;
  const pushed =
    request.push && clear ? await p.push(s.session, s.device, request.push, s.transport) : undefined;
  const close = request.close;
  const closes =
    close !== undefined &&
    clear &&
    (request.push === undefined || pushed !== undefined) &&
    opened.signals === 0 &&
    (close.pull === false || opened.files.length === 0) &&
    (!request.firmware_offer || noImage(opened.firmware));
  // A copy with members added (Object.assign: a spread followed by more members makes V8, on
  // Node 20, build a new hidden class at every session).
  const reply: OpenReply = Object.assign(
    {},
    opened,
    pushed ? { pushed: { merged: pushed.merged } } : undefined,
    closes ? { closed: true } : undefined,
  );
  if (closes) await p.records.closeWithOpen(s.session, s.bytes, reply, close, s.device);
  else await p.records.account(s.session, s.bytes, reply);
  return reply;
}

/** An offer the module has nothing to fetch for (absent: the hub could not work it out). */
function noImage(offer: OpenReply["firmware"]): boolean {
  return offer !== undefined && offer.user === undefined && offer.card === undefined;
}
