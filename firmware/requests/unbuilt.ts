import { notYetBuilt } from "../errors.js";
import type { RequestHandler, RequestTable } from "./RequestTable.js";

/**
 * Requests whose behaviour arrives with a later capability. They answer a clear
 * `{not-supported}` error naming what is missing instead of pretending to work.
 */
const waitingFor: Record<string, string> = {
  "hub.sync": "synchronization with a hub",
  "hub.sync.status": "synchronization with a hub",
  "hub.status": "synchronization with a hub",
  "hub.signal": "synchronization with a hub",
  "dfu.get": "firmware update (DFU)",
  "dfu.status": "firmware update (DFU)",
  web: "web requests through hub proxy routes",
  "web.get": "web requests through hub proxy routes",
  "web.post": "web requests through hub proxy routes",
  "web.put": "web requests through hub proxy routes",
  "web.delete": "web requests through hub proxy routes",
};

const unbuilt =
  (what: string): RequestHandler =>
  ({ name }) => {
    throw notYetBuilt(name, what);
  };

export const unbuiltRequests: RequestTable = Object.fromEntries(
  Object.entries(waitingFor).map(([name, what]) => [name, unbuilt(what)]),
);
