import type { RequestTable } from "./RequestTable.js";

/** `hub.*` requests. */
export const hubRequests: RequestTable = {};
