/**
 * What a module sends back for one line from a host: the reply text (ending `\r\n`), then, for
 * requests like `card.binary.get`, raw bytes that follow the reply on the wire.
 */
export interface LineReply {
  readonly text: string;
  /** Bytes sent right after the text (COBS data ending `\n`); links must send them unchanged. */
  readonly after?: Uint8Array;
}
