import { describe, expect, it } from "vitest";
import { HelloThrottle, helloSource, parseHelloLimits } from "../../../hub/sync/HelloThrottle.js";

describe("the hello limits", () => {
  it("count an IPv4 address as itself (IPv4-mapped too) and an IPv6 address by its /64 network", () => {
    expect(helloSource("192.0.2.7")).toBe("192.0.2.7");
    expect(helloSource("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(helloSource("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(helloSource("2001:db8:1:2:ffff::9")).toBe("2001:db8:1:2::/64");
    expect(helloSource("2001:DB8:0001:0002::")).toBe("2001:db8:1:2::/64");
    expect(helloSource("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(helloSource("::1")).toBe("0:0:0:0::/64");
    expect(helloSource("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("hold a minute's worth per device and address and per address, and refill at that rate", () => {
    const throttle = new HelloThrottle({ perDevice: 3, perSource: 5 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect(throttle.take("dev:1", "192.0.2.7", t0)).toBeUndefined();
    expect(throttle.take("dev:1", "192.0.2.7", t0)).toEqual({ wait: 20_000, limit: "for this device" });
    // Another address has its own allowance for the device.
    expect(throttle.take("dev:1", "192.0.2.8", t0)).toBeUndefined();
    for (let i = 0; i < 2; i++) expect(throttle.take(`dev:${i + 2}`, "192.0.2.7", t0)).toBeUndefined();
    expect(throttle.take("dev:9", "192.0.2.7", t0)).toEqual({ wait: 12_000, limit: "from this address" });
    expect(throttle.take("dev:1", "192.0.2.7", t0 + 20_000)).toBeUndefined();
    // Full buckets are forgotten.
    throttle.prune(t0 + 20_000 + 60_000);
    expect(throttle.size).toBe(0);
  });

  it("read --hello-limit", () => {
    expect(parseHelloLimits("off")).toBe(false);
    expect(parseHelloLimits("60/min, 600/min")).toEqual({ perDevice: 60, perSource: 600 });
    expect(() => parseHelloLimits("60")).toThrow(/like "120\/min,6000\/min"/);
    expect(() => parseHelloLimits("0/min,5/min")).toThrow();
  });
});
