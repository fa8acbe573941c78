import { afterEach, describe, expect, it } from "vitest";
import type { ProtocolRequest } from "../../protocol/messages.js";
import { modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/**
 * The message types of the sessions from now on, and `firmware_offer` where an open asks the hub
 * for its firmware offer in the open reply (in place of a `firmware` message).
 */
function recordTypes(w: ModesWorld): string[] {
  const types: string[] = [];
  // A fault that never fires: it only sees every request the module sends.
  w.world.links.get(w.sim)!.fail({
    failure: "dropped",
    when: (request: ProtocolRequest) => {
      types.push(request.type);
      if (request.type === "open" && request.firmware_offer === true) types.push("firmware_offer");
      return false;
    },
  });
  return types;
}

describe("OTA firmware updates by sync mode", () => {
  it("a periodic session asks the hub for firmware; a minimum session does not", async () => {
    w = await modesWorld();
    const types = recordTypes(w);
    await w.world.sync(w.sim);
    expect(types.filter((t) => t === "firmware" || t === "firmware_offer")).not.toEqual([]);
    types.length = 0;
    await w.req({ req: "hub.set", mode: "minimum" });
    await w.world.sync(w.sim);
    // A session took place (resumed with the ticket of the first: an open without hello).
    expect(types).toContain("open");
    expect(types).not.toContain("firmware");
    expect(types).not.toContain("firmware_offer");
  });

  it("off mode has no session at all, so no update either", async () => {
    w = await modesWorld();
    const types = recordTypes(w);
    await w.req({ req: "hub.set", mode: "off" });
    await w.world.sync(w.sim);
    expect(types).toEqual([]);
  });
});
