import { describe, expect, it } from "vitest";
import { HubLinkError } from "../../../firmware/radio/HubLink.js";
import { EngineState } from "../../../firmware/sync/EngineState.js";
import { countSession, emptyCounts, errorKind } from "../../../runtime/fleet/FleetStats.js";

describe("a fleet's errors by kind", () => {
  it("name the link's failure behind a {sync-error}: a timeout, a dropped exchange, an unreachable hub", () => {
    for (const failure of ["timeout", "dropped", "unreachable"] as const) {
      const state = new EngineState({} as never);
      state.fail(new HubLinkError(failure, "no reply from https://127.0.0.1:7443 in 30000 ms"));
      expect(errorKind(state.error)).toBe(`sync-error:${failure}`);
    }
  });

  it("keep the first tag of any other failure, and say link or other when there is none", () => {
    expect(errorKind("the hub's push reply cannot be read: merged must be an integer {sync-error}")).toBe(
      "sync-error",
    );
    expect(errorKind("device is in a penalty box {penalty-box} {timeout}")).toBe("penalty-box");
    expect(errorKind("{sync-error} {not-a-link-failure}")).toBe("sync-error");
    expect(errorKind("connection refused", true)).toBe("link");
    expect(errorKind(undefined)).toBe("other");
  });

  it("are counted apart in a fleet's summary", () => {
    const counts = emptyCounts();
    const traffic = { notes_sent: 0, notes_received: 0 };
    const failed = (error: string) =>
      countSession(counts, { ok: false, error, traffic, started: 0, ended: 1 } as never, 1);
    failed("no reply {sync-error} {timeout}");
    failed("no reply {sync-error} {timeout}");
    failed("cut off {sync-error} {dropped}");
    expect(counts.errors).toEqual({ "sync-error:timeout": 2, "sync-error:dropped": 1 });
    expect(counts.failed).toBe(3);
  });
});
