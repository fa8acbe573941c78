/**
 * The device-facing sync protocol's messages and replies, in one place for those who import them
 * all (docs/sync-protocol.md is the specification). Each part is a file of one purpose:
 *
 * - `envelope`: every request's and reply's envelope (`v`, `type`, `err`), the error codes of a
 *   sync (`SYNC_ERRORS`) and how long the hub may hold a message (`replyWaitMs`);
 * - `sessionMessages`: opening and closing a session (`hello`, `open` with the module's context
 *   and the device's place and environment, `close`, `signedText`);
 * - `transferMessages`: notefile changes (`push`, `pull`, `ack`, `BATCH_LIMITS`);
 * - `signalMessages`: `signals`;
 * - `firmwareMessages`: firmware updates (`firmware`, `read`, `dfu`);
 * - `webMessages`: web requests (`web`).
 */

export * from "./envelope.js";
export * from "./sessionMessages.js";
export * from "./transferMessages.js";
export * from "./signalMessages.js";
export * from "./firmwareMessages.js";
export * from "./webMessages.js";
