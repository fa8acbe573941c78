import { describe, expect, it } from "vitest";
import { HubLinkError, unconnectedHubLink } from "../../../firmware/radio/HubLink.js";
import { SimRadioConditions } from "../../../firmware/radio/RadioConditions.js";
import { SimHubLink } from "../../../firmware/radio/SimHubLink.js";
import type { ProtocolReply, ProtocolRequest } from "../../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../../protocol/version.js";
import { FakeClock } from "../../../runtime/FakeClock.js";

const request = (type: string, extra: Record<string, unknown> = {}): ProtocolRequest => ({
  v: PROTOCOL_VERSION,
  type,
  ...extra,
});

function echoHub() {
  const seen: ProtocolRequest[] = [];
  const respond = async (req: ProtocolRequest): Promise<ProtocolReply> => {
    seen.push(req);
    return { v: PROTOCOL_VERSION, echo: req };
  };
  return { seen, respond };
}

describe("the simulated hub link", () => {
  it("copies messages both ways, as if they crossed a wire", async () => {
    const hub = echoHub();
    const link = new SimHubLink(hub.respond);
    const sent = request("ping", { body: { n: 1 } });
    const { reply, sent: sentBytes, received } = await link.exchange(sent);
    (sent["body"] as { n: number }).n = 2;
    expect(hub.seen[0]).toEqual(request("ping", { body: { n: 1 } }));
    expect(reply["echo"]).toEqual(request("ping", { body: { n: 1 } }));
    // What crossed: the bytes of each message's JSON.
    expect(sentBytes).toBe(JSON.stringify(request("ping", { body: { n: 1 } })).length);
    expect(received).toBe(JSON.stringify(reply).length);
  });

  it("counts bytes as UTF-8 on the wire, and hands the hub the request's size", async () => {
    const sizes: number[] = [];
    const link = new SimHubLink(async (_req, bytes) => {
      sizes.push(bytes);
      return { v: PROTOCOL_VERSION };
    });
    const message = request("ping", { body: { text: "é€😀" } });
    const { sent } = await link.exchange(message);
    expect(sent).toBe(new TextEncoder().encode(JSON.stringify(message)).length);
    expect(sizes).toEqual([sent]);
  });

  it("takes the radio's latency on the module's clock", async () => {
    const clock = new FakeClock();
    const radio = new SimRadioConditions(clock, { latencyMs: 250 });
    const link = new SimHubLink(echoHub().respond, { clock, radio });
    let done = false;
    const exchange = link.exchange(request("ping")).then(() => (done = true));
    await clock.advance(249);
    expect(done).toBe(false);
    await clock.advance(1);
    await exchange;
    expect(done).toBe(true);
  });

  it("is unreachable without coverage or while the hub cannot be reached, and recovers", async () => {
    const clock = new FakeClock();
    const radio = new SimRadioConditions(clock);
    const hub = echoHub();
    const link = new SimHubLink(hub.respond, { clock, radio });
    radio.outage("registration", 60_000);
    await expect(link.exchange(request("ping"))).rejects.toMatchObject({
      failure: "unreachable",
      message: "no network",
    });
    await clock.advance(60_000);
    await expect(link.exchange(request("ping"))).resolves.toBeDefined();
    radio.outage("hub");
    await expect(link.exchange(request("ping"))).rejects.toThrow("the hub cannot be reached");
    radio.restore();
    await link.exchange(request("ping"));
    expect(hub.seen).toHaveLength(2);
  });

  it("fails armed exchanges before or after the hub acted on them", async () => {
    const hub = echoHub();
    const link = new SimHubLink(hub.respond);
    link.fail({ failure: "unreachable" });
    link.fail({ failure: "dropped", when: (r) => r.type === "push" });
    await expect(link.exchange(request("open"))).rejects.toBeInstanceOf(HubLinkError);
    expect(hub.seen).toHaveLength(0);
    await link.exchange(request("open"));
    // The hub processed the push, but its reply was lost on the way back.
    await expect(link.exchange(request("push"))).rejects.toMatchObject({ failure: "dropped" });
    expect(hub.seen.map((r) => r.type)).toEqual(["open", "push"]);
    await link.exchange(request("push"));
    expect(link.exchanges).toBe(4);
  });

  it("a module without a hub has a link that is never reachable", async () => {
    await expect(unconnectedHubLink.exchange(request("ping"))).rejects.toMatchObject({
      failure: "unreachable",
    });
  });
});

describe("simulated radio conditions", () => {
  it("report changes once each, and end a timed outage by themselves", async () => {
    const clock = new FakeClock();
    const radio = new SimRadioConditions(clock);
    const seen: boolean[] = [];
    radio.onChange(() => seen.push(radio.state().registered));
    radio.set({ bars: 1, rssi: -105 });
    radio.set({ bars: 1 });
    radio.outage("registration", 1000);
    await clock.advance(1000);
    expect(seen).toEqual([true, false, true]);
    expect(radio.state()).toMatchObject({ bars: 1, rssi: -105, registered: true });
    expect(() => radio.outage("hub", 0)).toThrow(/> 0 ms/);
  });
});
