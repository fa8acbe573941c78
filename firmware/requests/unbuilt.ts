import { notYetBuilt } from "../errors.js";
import type { VariantName } from "../Variant.js";
import type { RequestDefinition, RequestTable } from "./RequestTable.js";

interface Waiting {
  /** What the request waits for. */
  readonly what: string;
  /** Variants that have the request (all when absent): others answer `request not supported`. */
  readonly variants?: readonly VariantName[];
}

/**
 * Requests whose behaviour arrives with a later capability. They answer a clear
 * `{not-supported}` error naming what is missing instead of pretending to work; on a variant
 * without the request they answer as the real module does.
 */
const waitingFor: Record<string, Waiting> = {
  // card.* requests that need hardware or a later capability.
  "card.sleep": { what: "the deep sleep model", variants: ["wifi"] },
  "card.trace": { what: "trace output on the host link" },
  "ntn.gps": { what: "the satellite (NTN) radio model", variants: ["ntn"] },
  "ntn.reset": { what: "the satellite (NTN) radio model", variants: ["ntn"] },
  "ntn.status": { what: "the satellite (NTN) radio model", variants: ["ntn"] },
};

function unbuilt({ what, variants }: Waiting): RequestDefinition {
  return {
    // The dispatcher answers the variant check; this handler only runs where the request exists.
    ...(variants ? { variants } : {}),
    handler: ({ name }) => {
      throw notYetBuilt(name, what);
    },
  };
}

export const unbuiltRequests: RequestTable = Object.fromEntries(
  Object.entries(waitingFor).map(([name, waiting]) => [name, unbuilt(waiting)]),
);
