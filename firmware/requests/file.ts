import type { RequestTable } from "./RequestTable.js";

/** `file.*` requests. */
export const fileRequests: RequestTable = {};
