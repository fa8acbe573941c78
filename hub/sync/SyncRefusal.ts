/** The hub's refusals are the protocol's (protocol/SyncRefusal.ts): its readers throw them too. */
export { refusal, SyncRefusal } from "../../protocol/SyncRefusal.js";
