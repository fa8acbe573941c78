import type { ProtocolReply, ProtocolRequest } from "./envelope.js";
import type { NoteRecord } from "./NoteRecord.js";

/**
 * The most a change batch (`push` or a `pull` reply) holds: notes, and bytes of their JSON (a
 * batch stops before the note that would pass it; a single larger note goes alone).
 */
export const BATCH_LIMITS = { notes: 100, bytes: 256 * 1024 } as const;

/**
 * A batch of one notefile's changes: the notes changed after `after` up to and including
 * `through` (change numbers of the sending end). The receiver merges them; the sender's tracker
 * moves to `through` only once the batch is acknowledged, and only if it still stands at
 * `after` (else it starts again from the beginning).
 */
export interface ChangeBatch {
  readonly file: string;
  readonly after: number;
  readonly through: number;
  readonly notes: readonly NoteRecord[];
}

/** The module's changes of one notefile; the reply acknowledges them. */
export interface PushRequest extends ProtocolRequest, ChangeBatch {
  readonly type: "push";
  readonly token: string;
}

export interface PushReply extends ProtocolReply {
  /** Notes that changed the hub's replica or made an event (a retransmission makes none). */
  readonly merged: number;
}

/** Asks for the hub's changes of one notefile after the hub's tracker for the device. */
export interface PullRequest extends ProtocolRequest {
  readonly type: "pull";
  readonly token: string;
  readonly file: string;
  readonly max?: number;
}

export interface PullReply extends ProtocolReply, ChangeBatch {
  /** More changes wait after this batch. */
  readonly more: boolean;
}

/** The module merged a pulled batch: the hub's tracker for the device may move to `through`. */
export interface AckRequest extends ProtocolRequest {
  readonly type: "ack";
  readonly token: string;
  readonly file: string;
  readonly after: number;
  readonly through: number;
}

export interface AckReply extends ProtocolReply {
  /** The hub's tracker was not at `after`: it starts again from the beginning. */
  readonly reset?: boolean;
}
