import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../../hil/HostLineClient.js";
import type { ByteLink } from "../../../hil/links/ByteLink.js";
import { PtyPair } from "../../../hil/links/PtyPair.js";
import { SerialDeviceServer } from "../../../hil/links/SerialDeviceServer.js";
import { parseSerialSpec, SerialPortLink } from "../../../hil/links/SerialPortLink.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import { bootTestModule } from "../../support/moduleFixture.js";
import { Changes } from "../../support/waiting.js";

// Real tty drivers and a socat child: generous deadlines, since a loaded CI machine is slow to
// notice a device going away; the message names the wait that ran out.
const PATIENCE_MS = 25_000;

describe("parseSerialSpec", () => {
  it("reads DEV[@BAUD], 9600 by default", () => {
    expect(parseSerialSpec("/dev/ttyAMA0")).toEqual({ path: "/dev/ttyAMA0", baudRate: 9600 });
    expect(parseSerialSpec("/dev/ttyUSB0@115200")).toEqual({ path: "/dev/ttyUSB0", baudRate: 115200 });
    expect(() => parseSerialSpec("/dev/x@fast")).toThrow(/bad baud rate/);
    expect(() => parseSerialSpec("/dev/x@0")).toThrow(/bad baud rate/);
  });
});

describe.skipIf(!PtyPair.available())("SerialPortLink and SerialDeviceServer on a pty pair", () => {
  let dir: string;
  let pair: PtyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-serial-"));
    pair = await PtyPair.open(join(dir, "module"), join(dir, "host"));
  });

  afterAll(async () => {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("carries every byte value both ways through real tty drivers", async () => {
    const a = await SerialPortLink.open(pair.a + "@115200");
    const b = await SerialPortLink.open(pair.b);
    const atA: number[] = [];
    const atB: number[] = [];
    const arrived = new Changes();
    a.onData((x) => (atA.push(...x), arrived.fire()));
    b.onData((x) => (atB.push(...x), arrived.fire()));
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    a.write(all);
    b.write(all);
    await arrived.until(() => atA.length === 256 && atB.length === 256, "256 bytes each way", PATIENCE_MS);
    expect(atB).toEqual([...all]);
    expect(atA).toEqual([...all]);
    await a.close();
    await b.close();
  });

  it("fails to open a device that is not there with a clear message", async () => {
    await expect(SerialPortLink.open(join(dir, "nothing"))).rejects.toThrow(
      /^there is no device .*nothing: check its name/,
    );
  });

  it("serves a module on the device, and opens it again after it went away and came back", async () => {
    const t = await bootTestModule({ clock: new SystemClock() as never });
    const statuses: boolean[] = [];
    const status = new Changes();
    const server = await SerialDeviceServer.start(t.module, pair.a, {
      clock: new SystemClock(),
      retryMs: 50,
      onStatus: ({ open }) => (statuses.push(open), status.fire()),
    });
    try {
      let host = await HostLineClient.serial(pair.b);
      expect(await host.transaction('{"req":"echo","text":"first"}', { crc: true })).toMatch(
        /"text":"first"/,
      );
      await host.close();

      await pair.unplug();
      await status.until(() => !server.open, "the server to see the device go", PATIENCE_MS);
      await pair.plug();
      await status.until(() => server.open, "the server to open the device again", PATIENCE_MS);
      expect(server.opens).toBe(2);
      expect(statuses).toEqual([true, false, true]);

      host = await HostLineClient.serial(pair.b);
      expect(await host.transaction('{"req":"echo","text":"again"}')).toBe('{"text":"again"}');
      // A request longer than the receive buffer arrives whole when paced (HostLineClient paces).
      const long = "y".repeat(3000);
      expect(await host.transaction(JSON.stringify({ req: "echo", text: long }))).toBe(
        JSON.stringify({ text: long }),
      );
      expect(server.uart?.receiver?.stats.overflows).toBe(0);
      await host.close();
    } finally {
      await server.close();
    }
  });

  it("takes the device as gone when its path disappears, even if the open file is never told", async () => {
    const t = await bootTestModule({ clock: new SystemClock() as never });
    // A driver that never reports the hang-up: the link's close listeners are never called.
    const deaf = async (spec: string): Promise<ByteLink> => {
      const link = await SerialPortLink.open(spec);
      return {
        write: (b) => link.write(b),
        onData: (l) => link.onData(l),
        onClose: () => undefined,
        close: () => link.close(),
      };
    };
    const statuses: boolean[] = [];
    const status = new Changes();
    const server = await SerialDeviceServer.start(t.module, pair.a, {
      clock: new SystemClock(),
      retryMs: 50,
      open: deaf,
      watchPath: true,
      onStatus: ({ open }) => (statuses.push(open), status.fire()),
    });
    try {
      await pair.unplug();
      await status.until(() => !server.open, "the server to see the device go", PATIENCE_MS);
      await pair.plug();
      await status.until(() => server.open, "the server to open the device again", PATIENCE_MS);
      expect(statuses).toEqual([true, false, true]);
      const host = await HostLineClient.serial(pair.b);
      expect(await host.transaction('{"req":"echo","text":"back"}')).toBe('{"text":"back"}');
      await host.close();
    } finally {
      await server.close();
    }
  });
});

describe.runIf(!PtyPair.available())("serial links without socat", () => {
  it("are skipped: socat is not installed (CI installs it; apt-get install socat)", () => {
    expect(PtyPair.available()).toBe(false);
  });
});
