import type { LineReply } from "../../firmware/host/LineReply.js";
import type { LineHandler } from "../../firmware/host/SerialSession.js";

/** A handler's answer to a line in its richest form: the reply text and any bytes after it. */
export function lineReplies(handler: LineHandler): (line: Uint8Array) => Promise<LineReply | undefined> {
  if (handler.handleLineReply) return (line) => handler.handleLineReply!(line);
  return async (line) => {
    const text = await handler.handleLine(line);
    return text === undefined ? undefined : { text };
  };
}

/**
 * Wraps a handler so that `observe` sees every line and what the handler answered (reply text
 * and binary bytes after it), on both entry points links use.
 */
export function observeLines(
  handler: LineHandler,
  around: (line: Uint8Array, answer: () => Promise<LineReply | undefined>) => Promise<LineReply | undefined>,
): LineHandler {
  const reply = lineReplies(handler);
  return {
    handleLine: async (line) => (await around(line, () => reply(line)))?.text,
    handleLineReply: (line) => around(line, () => reply(line)),
    handleOverflow: (length) => handler.handleOverflow(length),
  };
}
