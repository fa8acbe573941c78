import type { RequestTable } from "./RequestTable.js";

/** `card.*` requests. */
export const cardRequests: RequestTable = {};
