import { notYetBuilt } from "../errors.js";
import type { VariantName } from "../Variant.js";
import type { RequestDefinition, RequestTable } from "./RequestTable.js";

interface Waiting {
  /** What the request waits for. */
  readonly what: string;
  /** Variants that have the request (all when absent): others answer `request not supported`. */
  readonly variants?: readonly VariantName[];
}

const WITH_WIFI: readonly VariantName[] = ["cell-wifi", "wifi", "ntn"];

/**
 * Requests whose behaviour arrives with a later capability. They answer a clear
 * `{not-supported}` error naming what is missing instead of pretending to work; on a variant
 * without the request they answer as the real module does.
 */
const waitingFor: Record<string, Waiting> = {
  // card.* requests that need hardware or a later capability.
  "card.wifi": { what: "the WiFi radio model", variants: WITH_WIFI },
  "card.power": { what: "the Mojo power monitor model" },
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
