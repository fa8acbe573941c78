import { afterEach, describe, expect, it } from "vitest";
import type { ScenarioFailure } from "cardsim/harness";
import { Scenario } from "cardsim/harness";

// A firmware team's test (imports only cardsim/harness; test/package runs it from the packed
// package): what `finish()` counts as expected, and the one shape of expectHostRequest and ignore.

const encoder = new TextEncoder();
let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

describe("finish() and the test's own requests", () => {
  it("passes after requests, a command and a binary transfer the test itself made through the emulated host, none listed", async () => {
    sc = await Scenario.start({ seed: "own", serial: { baud: 9600 } });
    const host = sc.attachNoteC();
    expect(await host.request({ req: "card.version" })).toHaveProperty("version");
    await host.request({ req: "note.add", file: "data.qo", body: { n: 1 } });
    await host.command({ cmd: "card.led", mode: "red", on: true });
    expect(await host.binaryPut(new Uint8Array([1, 2, 3]))).toBeUndefined();
    await sc.finish();
  });

  it("still lets an expectation take one of those requests, with its reply", async () => {
    sc = await Scenario.start({ seed: "take" });
    const host = sc.attachNoteC();
    await host.request({ req: "echo", text: "hello" });
    const line = await sc.expectHostRequest({ req: "echo", text: "hello" });
    expect(line.replyJson).toEqual({ text: "hello" });
    await sc.finish();
  });

  it("fails on a line some other host program sent, until an ignore rule of the same shape covers it", async () => {
    const unexpected = async (ignore?: (s: Scenario) => void) => {
      const s = (sc = await Scenario.start({ seed: "other" }));
      s.hostLink!.write(encoder.encode('{"req":"echo","text":"poll"}\n{"req":"echo","text":"x"}\n'));
      await s.advance(100);
      ignore?.(s);
      const failure = await s.finish().then(
        () => undefined,
        (e: unknown) => e as ScenarioFailure,
      );
      sc = undefined;
      return failure?.problems ?? [];
    };
    expect(await unexpected()).toEqual([
      expect.stringMatching(/host line nobody expected: .*"text":"poll"/),
      expect.stringMatching(/host line nobody expected: .*"text":"x"/),
    ]);
    // An object of fields, or a function of (request, line): for ignore and expectHostRequest alike.
    expect(await unexpected((s) => s.ignore({ req: "echo" }))).toEqual([]);
    expect(
      await unexpected((s) => s.ignore((r, line) => r["text"] === "poll" && line.kind === "request")),
    ).toEqual([expect.stringMatching(/host line nobody expected: .*"text":"x"/)]);
  });

  it("ignore reaches lines that are not requests through the line: (_, line) => line.kind", async () => {
    sc = await Scenario.start({ seed: "garbage" });
    sc.hostLink!.write(encoder.encode("not json\n"));
    await sc.advance(100);
    sc.ignore((_, line) => line.kind === "invalid");
    await sc.finish();
  });
});
