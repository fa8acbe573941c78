import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crc32Text } from "../../core/crc32.js";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { PtyBridge } from "../../hil/links/PtyBridge.js";
import { runCli, startCli, type CliProcess } from "../support/cliProcess.js";

describe("cardsim module --tcp", () => {
  let cli: CliProcess;
  let tcp: { host: string; port: number };

  beforeAll(async () => {
    cli = startCli(["module", "--tcp", "127.0.0.1:0", "--seed", "7", "--no-flash", "--log-level", "warn"]);
    const m = await cli.waitFor(/tcp\s+(\S+):(\d+)/);
    tcp = { host: m[1]!, port: Number(m[2]) };
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
  });

  it("prints the module's identity and where it listens", () => {
    expect(cli.stdout()).toMatch(/^module dev:\d{15} \(cell, NOTE-MBNAN\)/);
  });

  it("answers requests with CRC, resync newlines, and errors over a TCP connection", async () => {
    const client = await HostLineClient.tcp(tcp);
    expect(await client.resync()).toBe(true);
    expect(await client.transaction('{"req":"echo","text":"over tcp"}', { crc: true })).toMatch(
      /^\{"text":"over tcp","crc":"0000:[0-9A-F]{8}"\}$/,
    );
    expect(await client.transaction('{"req":"nope.nope"}')).toMatch(/\{not-supported\}/);
    // A request split across writes is still one request.
    client.write('{"req":"ec');
    client.write('ho","text":"split"}\r');
    client.write("\n");
    expect(await client.nextLine(5000)).toBe('{"text":"split"}');
    await client.close();
  });

  it("serves several connections to the same module", async () => {
    const [a, b] = await Promise.all([HostLineClient.tcp(tcp), HostLineClient.tcp(tcp)]);
    const replies = await Promise.all([
      a.transaction('{"req":"echo","text":"a"}'),
      b.transaction('{"req":"echo","text":"b"}'),
    ]);
    expect(replies).toEqual(['{"text":"a"}', '{"text":"b"}']);
    await Promise.all([a.close(), b.close()]);
  });

  it("cardsim req sends one request and prints the reply", async () => {
    const ok = await runCli(["req", "--tcp", `${tcp.host}:${tcp.port}`, '{"req":"echo","text":"cli"}']);
    expect(ok).toMatchObject({ code: 0, stdout: '{"text":"cli"}\n' });
    const withCrc = await runCli([
      "req",
      "--crc",
      "--tcp",
      `${tcp.host}:${tcp.port}`,
      '{"req":"echo","text":"c"}',
    ]);
    expect(withCrc.stdout).toBe(
      `{"text":"c","crc":"0000:${crc32Text('{"text":"c"}').toString(16).toUpperCase().padStart(8, "0")}"}\n`,
    );
    const bad = await runCli(["req", "--tcp", `${tcp.host}:${tcp.port}`, '{"req":"nope"}']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/\{not-supported\}/);
    // Arguments the module ignored reach the person who sent them, on stderr.
    const typo = await runCli([
      "req",
      "--tcp",
      `${tcp.host}:${tcp.port}`,
      '{"req":"note.add","file":"a.qo","body":{"t":1},"snyc":true}',
    ]);
    expect(typo).toMatchObject({
      code: 0,
      stdout: '{"total":1}\n',
      stderr: "warning: note.add ignored unrecognized argument(s): snyc\n",
    });
    const notJson = await runCli(["req", "--tcp", `${tcp.host}:${tcp.port}`, "{oops"]);
    expect(notJson.code).not.toBe(0);
    expect(notJson.stderr).toMatch(/not JSON/);
  });
});

describe("cardsim module's console", () => {
  it("--trace prints each request and reply as readable lines; --log-format json prints JSON lines", async () => {
    for (const format of ["pretty", "json"]) {
      const cli = startCli([
        "module",
        "--tcp",
        "127.0.0.1:0",
        "--no-flash",
        "--trace",
        "--log-format",
        format,
      ]);
      const m = await cli.waitFor(/tcp\s+(\S+):(\d+)/);
      await runCli(["req", "--tcp", `${m[1]}:${m[2]}`, '{"req":"echo","text":"hi"}']);
      expect(await cli.stop("SIGINT")).toBe(0);
      const lines = cli.stderr().trimEnd().split("\n");
      if (format === "pretty") {
        expect(lines).toContainEqual(
          expect.stringMatching(
            /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(module\): > \{"req":"echo","text":"hi"\}$/,
          ),
        );
        expect(lines).toContainEqual(expect.stringMatching(/INFO \(module\): < \{"text":"hi"\}$/));
      } else {
        const entries = lines.map((l) => JSON.parse(l) as { msg: string });
        expect(entries.map((e) => e.msg)).toEqual(
          expect.arrayContaining(['> {"req":"echo","text":"hi"}', '< {"text":"hi"}']),
        );
      }
    }
  });
});

describe.skipIf(!PtyBridge.available())("cardsim module --pty", () => {
  let dir: string;
  let cli: CliProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-pty-"));
    cli = startCli([
      "module",
      "--tcp",
      "127.0.0.1:0",
      "--pty",
      join(dir, "ttyNOTE"),
      "--no-flash",
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/pty\s+(\S+)/);
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is a serial device a host library opens like a real module's port", async () => {
    const client = await HostLineClient.serial(join(dir, "ttyNOTE") + "@9600");
    expect(await client.transaction('{"req":"echo","text":"over a pty"}', { crc: true })).toMatch(
      /"text":"over a pty"/,
    );
    await client.close();
    // Closing and reopening the device works (hosts reopen ports after a reset).
    const again = await HostLineClient.serial(join(dir, "ttyNOTE"));
    expect(await again.transaction('{"req":"echo","text":"again"}')).toBe('{"text":"again"}');
    await again.close();
  });

  it("cardsim req --serial talks to it", async () => {
    const r = await runCli(["req", "--serial", join(dir, "ttyNOTE"), '{"req":"echo","text":"via req"}']);
    expect(r).toMatchObject({ code: 0, stdout: '{"text":"via req"}\n' });
  });

  it("a second module as a serial device claims no TCP port (README: while npm start runs)", async () => {
    // Hold the default TCP port the way a running `npm start` does (if nothing else holds it).
    const { createServer } = await import("node:net");
    const holder = createServer();
    await new Promise<void>((resolve) => {
      holder.once("error", () => resolve());
      holder.listen(9600, "127.0.0.1", () => resolve());
    });
    const second = startCli(["module", "--pty", join(dir, "ttySecond"), "--no-flash", "--log-level", "warn"]);
    try {
      await second.waitFor(/pty\s+/);
      expect(second.stdout()).not.toMatch(/\btcp\b/);
      const r = await runCli(["req", "--serial", join(dir, "ttySecond"), '{"req":"echo","text":"second"}']);
      expect(r).toMatchObject({ code: 0, stdout: '{"text":"second"}\n' });
      expect(await second.stop("SIGINT")).toBe(0);
      expect(second.stdout()).toMatch(/^cardsim module: stopped module dev:\d+; it ran on memory only/m);
    } finally {
      await second.stop();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("removes the device when the module stops", async () => {
    const other = startCli([
      "module",
      "--tcp",
      "127.0.0.1:0",
      "--pty",
      join(dir, "ttyB"),
      "--no-flash",
      "--log-level",
      "warn",
    ]);
    await other.waitFor(/pty\s+/);
    expect(await other.stop("SIGINT")).toBe(0);
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(dir, "ttyB"))).toBe(false);
  });
});

describe.runIf(!PtyBridge.available())("cardsim module --pty without socat", () => {
  it("is skipped: socat is not installed (CI installs it; apt-get install socat)", () => {
    expect(PtyBridge.available()).toBe(false);
  });
});
