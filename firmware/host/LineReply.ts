/**
 * What a module sends back for one line from a host: the reply text (ending `\r\n`), then, for
 * requests like `card.binary.get`, raw bytes that follow the reply on the wire.
 */
export interface LineReply {
  readonly text: string;
  /** Bytes sent right after the text (COBS data ending `\n`); links must send them unchanged. */
  readonly after?: Uint8Array;
  /**
   * What the module said about this line in its log (arguments it ignored), for links that serve
   * tools and were asked to show it; host links never send it.
   */
  readonly notices?: readonly string[];
}
