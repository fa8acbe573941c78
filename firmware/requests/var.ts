import type { RequestTable } from "./RequestTable.js";

/** `var.*` requests. */
export const varRequests: RequestTable = {};
