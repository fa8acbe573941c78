import type { JsonObject } from "../../core/json.js";
import type { OpenReply, ProtocolReply, ProtocolRequest, SessionTrigger } from "../../protocol/messages.js";
import { readReply, ReplyError } from "../../protocol/readReply.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type { Traffic } from "./SyncState.js";
import { SyncFailure, type OpenSession, type SyncHost } from "./syncTypes.js";

/** A session's traffic counters, all zero. */
export function noTraffic(): Traffic {
  return { bytes_sent: 0, bytes_received: 0, notes_sent: 0, notes_received: 0 };
}

/**
 * One exchange with the hub: the bytes are counted in `traffic`, the reply is read through
 * `protocol/readReply.ts` (a reply that does not read as its type says is a `{sync-error}`), and
 * a reply with `err` throws a `SyncFailure`.
 */
export async function exchange<R extends ProtocolReply>(
  module: SyncHost,
  request: ProtocolRequest,
  traffic: Traffic,
): Promise<R> {
  const { reply, sent, received } = await module.hubLink.exchange(request);
  traffic.bytes_sent += sent;
  traffic.bytes_received += received;
  let read: ProtocolReply;
  try {
    // Nothing of a reply is acted on before all of it reads as its type says.
    read = readReply(request, reply);
  } catch (error) {
    if (error instanceof ReplyError) throw new SyncFailure(`${error.message} {sync-error}`);
    throw error;
  }
  if (typeof read.err === "string") throw new SyncFailure(read.err);
  return read as R;
}

/** The session `token` as session steps and online requests see it. */
export function openSession(
  module: SyncHost,
  token: string,
  secure: boolean,
  why: SessionTrigger,
  traffic: Traffic,
  opened?: OpenReply,
): OpenSession {
  // A method, not an arrow in a member (no function named at run time a session), and `opened`
  // only when there is one.
  const session: { -readonly [K in keyof OpenSession]: OpenSession[K] } = {
    why,
    secure,
    exchange<R extends ProtocolReply>(request: { readonly type: string } & JsonObject): Promise<R> {
      return exchange<R>(module, { ...request, v: PROTOCOL_VERSION, token } as ProtocolRequest, traffic);
    },
  };
  if (opened) session.opened = opened;
  return session;
}

/**
 * Tells the hub a session is over if it can still hear it (its reply unread, a failure
 * ignored): the token expires anyway.
 */
export function closeQuietly(
  module: SyncHost,
  token: string,
  why: string,
  confirm: { deleted?: readonly string[] },
): Promise<unknown> {
  return module.hubLink
    .exchange({ v: PROTOCOL_VERSION, type: "close", token, why, ...confirm })
    .catch(() => undefined);
}
