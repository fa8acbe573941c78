import type { RequestTable } from "./RequestTable.js";

/** `note.*` requests. */
export const noteRequests: RequestTable = {};
