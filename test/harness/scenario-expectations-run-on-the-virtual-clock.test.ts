import { existsSync, readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Scenario, ScenarioFailure } from "../../harness/Scenario.js";
import { ScenarioTimeout } from "../../harness/TimeDriver.js";

const encoder = new TextEncoder();

describe("scenario expectations on the virtual clock", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("expects a host request, then its reply, with the module's clock moving only as needed", async () => {
    sc = await Scenario.start({ seed: 3 });
    const host = sc.attachNoteC();
    const pending = host.request({ req: "echo", text: "hello" });
    const line = await sc.expectHostRequest((r) => r["req"] === "echo", { timeout: 5000 });
    expect(line.kind).toBe("request");
    expect(line.request).toEqual({ req: "echo", text: "hello" });
    expect(line.crcSequence).toBe(0);
    // note-c resets first (250 ms, a newline, 500 ms listening for the answer), then sends the
    // request at 750 ms; the module's serial task takes its 70 bytes out of the receive buffer in
    // two 10 ms ticks (40 bytes a tick).
    expect(line.t).toBe(770);
    expect(await sc.replyTo(line)).toEqual({ text: "hello" });
    expect(await pending).toEqual({ text: "hello" });
    await sc.finish();
  });

  it("fails an expectation at its deadline in scenario time (how fast in real time is bench/ territory)", async () => {
    sc = await Scenario.start();
    const wait = sc.expectHostRequest((r) => r["req"] === "card.version", { timeout: 3_600_000 });
    await expect(wait).rejects.toBeInstanceOf(ScenarioTimeout);
    await expect(wait).rejects.toThrow(/timed out after 3600000 ms waiting for a host request/);
    expect(sc.elapsed()).toBe(3_600_000);
    // A timed-out expectation does not swallow a later request.
    const host = sc.attachNoteC();
    const reply = host.request({ req: "card.version" });
    await sc.expectHostRequest((r) => r["req"] === "card.version");
    await reply;
    await sc.finish();
  });

  it("lets several waits run at once on one clock", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    const a = host.request({ req: "echo", text: "a" });
    const advanced = sc.advance(10_000);
    const seen = sc.expectHostRequest((r) => r["text"] === "a");
    const [reply, , line] = await Promise.all([a, advanced, seen]);
    expect(reply).toEqual({ text: "a" });
    expect(line.t).toBe(770);
    expect(sc.elapsed()).toBe(10_000);
    await sc.finish();
  });

  it("fails at the end on host requests nobody expected, listing them, with the capture saved", async () => {
    sc = await Scenario.start({ capture: true, seed: "unexpected" });
    // A host program of the test's own on the raw link (not the emulator the test drives).
    sc.hostLink!.write(
      encoder.encode('{"req":"echo","text":"expected"}\n{"req":"echo","text":"surprise"}\n'),
    );
    await sc.advance(100);
    await sc.expectHostRequest((r) => r["text"] === "expected");
    const failure = await sc.finish().then(
      () => undefined,
      (e: unknown) => e,
    );
    sc = undefined;
    expect(failure).toBeInstanceOf(ScenarioFailure);
    const f = failure as ScenarioFailure;
    expect(f.problems).toHaveLength(1);
    expect(f.problems[0]).toMatch(
      /host line nobody expected: #\d+ at \d+ ms on serial \(request\): \{"req":"echo","text":"surprise"/,
    );
    expect(f.capturePath).toBeDefined();
    expect(existsSync(f.capturePath!)).toBe(true);
    expect(readFileSync(f.capturePath!, "utf8")).toContain('"link":"serial.module"');
    rmSync(f.capturePath!);
  });

  it("accepts lines an ignore rule covers, now and later", async () => {
    sc = await Scenario.start();
    const poll = encoder.encode('{"req":"echo","text":"poll"}\n');
    sc.hostLink!.write(poll);
    await sc.advance(100);
    sc.ignore({ text: "poll" });
    sc.hostLink!.write(poll);
    await sc.advance(100);
    expect(sc.traffic.lines.map((l) => l.replyJson)).toEqual([{ text: "poll" }, { text: "poll" }]);
    await sc.finish();
  });

  it("fails at the end on a half-sent line and on module output the host never read", async () => {
    sc = await Scenario.start();
    sc.attachNoteC();
    sc.hostLink!.write(encoder.encode('{"req":"echo","text":"raw"}\n{"req":"ec'));
    await sc.advance(100);
    const failure = (await sc.finish().catch((e: unknown) => e)) as ScenarioFailure;
    sc = undefined;
    expect(failure.problems).toEqual([
      expect.stringMatching(/host line nobody expected: .*"text":"raw"/),
      "still in flight: 10 bytes of a line without its newline",
      "16 bytes from the module that the host never read",
    ]);
  });
});
