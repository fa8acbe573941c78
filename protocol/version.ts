/**
 * Version of the device-facing sync protocol (docs/sync-protocol.md). Every message carries it;
 * a hub answers a version it does not speak with an error naming the versions it does.
 */
export const PROTOCOL_VERSION = 1;
