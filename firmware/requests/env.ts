import type { RequestTable } from "./RequestTable.js";

/** `env.*` requests. */
export const envRequests: RequestTable = {};
