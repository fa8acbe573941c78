#!/usr/bin/python3
"""A host program that drives a module through a serial device with pyserial, as a product's
Linux host would: reset by newline, requests with the request CRC (lowercase hex, as note-python
sends it), 250-byte segments 250 ms apart, commands, errors, and a request sent without pacing.

Usage: pyserial_host.py DEVICE [BAUD]. Prints one JSON object per step on stdout; exits 0 when
every step behaved as a module must, 1 otherwise (the failing step says why).
"""
import hashlib
import json
import os
import sys
import time
import zlib

import serial

SEGMENT = 250
SEGMENT_DELAY = 0.25


class Host:
    def __init__(self, device, baud):
        # A real host opens the port like this; modem lines may not exist (ptys, USB gadgets).
        self.port = serial.Serial(device, baud, timeout=0.02)
        self.seq = 0
        self.module_sends_crc = False

    def drain(self, seconds):
        end = time.monotonic() + seconds
        data = b""
        while time.monotonic() < end:
            data += self.port.read(256)
        return data

    def reset(self):
        """Newline, then listen 500 ms: ready when only CR/LF came back (note-c's rule)."""
        for _ in range(10):
            self.port.write(b"\n")
            got = self.drain(0.5)
            if got and all(b in b"\r\n" for b in got):
                return True
        return False

    def write_paced(self, data, paced=True):
        for offset in range(0, len(data), SEGMENT):
            if offset and paced:
                time.sleep(SEGMENT_DELAY)
            self.port.write(data[offset : offset + SEGMENT])

    def read_line(self, timeout=5.0):
        end = time.monotonic() + timeout
        data = b""
        while time.monotonic() < end:
            data += self.port.read(1)
            if data.endswith(b"\n"):
                return data
        raise TimeoutError("no reply line within %.1f s (got %r)" % (timeout, data[:80]))

    def request(self, obj, crc=True, paced=True, timeout=10.0):
        text = json.dumps(obj, separators=(",", ":"))
        seq = self.seq
        if crc:
            text = text[:-1] + ',"crc":"%04x:%08x"}' % (seq, zlib.crc32(text.encode()))
            self.seq = (self.seq + 1) & 0xFFFF
        self.write_paced((text + "\n").encode(), paced)
        line = self.read_line(timeout)
        if not line.endswith(b"\r\n"):
            raise ValueError("reply does not end with CRLF: %r" % line[-10:])
        reply = line.decode().strip()
        if crc and '"err":' not in reply:
            check_reply_crc(reply, seq)
        return json.loads(reply)


def cobs_encode(data, eop=0x0A):
    """COBS, then every byte XORed with the end-of-packet byte, so the packet holds no newline."""
    out = bytearray([0])
    code_at, code = 0, 1
    for byte in data:
        if byte == 0:
            out[code_at] = code ^ eop
            code_at, code = len(out), 1
            out.append(0)
            continue
        out.append(byte ^ eop)
        code += 1
        if code == 0xFF:
            out[code_at] = code ^ eop
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code ^ eop
    return bytes(out)


def cobs_decode(packet, eop=0x0A):
    data = bytearray()
    i = 0
    while i < len(packet):
        code = packet[i] ^ eop
        if code == 0:
            raise ValueError("zero code byte")
        run = packet[i + 1 : i + code]
        if len(run) != code - 1:
            raise ValueError("truncated run")
        data.extend(b ^ eop for b in run)
        i += code
        if code != 0xFF and i < len(packet):
            data.append(0)
    return bytes(data)


def check_reply_crc(reply, seq):
    # The field follows a comma, or a space when the reply is otherwise empty: { "crc":"..."}
    tail = max(reply.rfind(',"crc":"'), reply.rfind(' "crc":"'))
    if tail < 0 or not reply.endswith('"}'):
        raise ValueError("reply has no crc field: %s" % reply)
    field = reply[tail + 8 : -2]
    got_seq, got_crc = field.split(":")
    body = reply[:tail] + "}"
    if int(got_seq, 16) != seq:
        raise ValueError("reply sequence %s, expected %d" % (got_seq, seq))
    if int(got_crc, 16) != zlib.crc32(body.encode()):
        raise ValueError("reply CRC mismatch: %s" % reply)


def main():
    device = sys.argv[1]
    baud = int(sys.argv[2]) if len(sys.argv) > 2 else 9600
    host = Host(device, baud)
    results = []
    failed = False

    def step(name, check):
        nonlocal failed
        try:
            detail = check()
            results.append({"step": name, "ok": True, "detail": detail})
        except Exception as error:  # the report names the step that failed, and why
            failed = True
            results.append({"step": name, "ok": False, "error": "%s: %s" % (type(error).__name__, error)})

    def expect(condition, message):
        if not condition:
            raise AssertionError(message)

    def reset():
        expect(host.reset(), "the module did not answer a newline with CRLF")
        return "ready"

    def echo_with_crc():
        reply = host.request({"req": "echo", "text": "over pyserial"})
        expect(reply.get("text") == "over pyserial", reply)
        return reply

    def id_echoed():
        reply = host.request({"req": "echo", "text": "id", "id": 42})
        expect(reply.get("id") == 42, reply)
        return reply

    def crc_mismatch_is_io():
        host.write_paced(b'{"req":"echo","text":"x","crc":"0007:00000000"}\n')
        reply = json.loads(host.read_line().decode())
        expect("{io}" in reply.get("err", ""), reply)
        return reply

    def command_gets_no_reply():
        host.write_paced(b'{"cmd":"echo","text":"quiet"}\n')
        extra = host.drain(0.5)
        expect(extra == b"", "a cmd was answered: %r" % extra)
        return "silent"

    def unknown_is_not_supported():
        reply = host.request({"req": "card.nothing"})
        expect("{not-supported}" in reply.get("err", "") and "{io}" in reply["err"], reply)
        return reply

    def garbage_is_answered():
        host.write_paced(b"\x00\xff garbage\n")
        reply = json.loads(host.read_line().decode())
        expect("{io}" in reply.get("err", ""), reply)
        return reply

    def env_round_trip():
        host.request({"req": "env.set", "name": "e2e", "text": "yes"})
        reply = host.request({"req": "env.get", "name": "e2e"})
        expect(reply.get("text") == "yes", reply)
        return reply

    def long_paced_request():
        text = "p" * 3000
        reply = host.request({"req": "echo", "text": text}, timeout=20)
        expect(reply.get("text") == text, "long echo came back damaged")
        return len(text)

    def unpaced_request_overflows():
        # 3000 bytes at once: more than the module's 1500-byte receive buffer holds.
        host.port.write(('{"req":"echo","text":"%s"}\n' % ("u" * 3000)).encode())
        got = host.drain(3.0)
        # The line end may be lost with the rest; a newline ends whatever the module kept.
        if not got:
            host.port.write(b"\n")
            got = host.drain(1.0)
        text = got.decode(errors="replace")
        expect("{io}" in text, "no {io} error after an overflow: %r" % text[:120])
        expect(host.reset(), "no resync after the overflow")
        return "io error, then resync"

    def binary_round_trip():
        data = os.urandom(3000) + bytes(300) + b"\n\n\x0a"
        host.request({"req": "card.binary", "delete": True})
        encoded = cobs_encode(data)
        expect(b"\n" not in encoded, "COBS output holds a newline")
        reply = host.request({"req": "card.binary.put", "cobs": len(encoded), "status": hashlib.md5(data).hexdigest()})
        expect("err" not in reply, reply)
        # The binary packet follows at once, without segment pauses.
        host.write_paced(encoded + b"\n", paced=False)
        state = host.request({"req": "card.binary"})
        expect(state.get("length") == len(data), state)
        expect(state.get("status") == hashlib.md5(data).hexdigest(), state)
        reply = host.request({"req": "card.binary.get", "offset": 100, "length": 2000})
        packet = host.read_line(timeout=10)
        chunk = cobs_decode(packet[:-1])
        expect(chunk == data[100:2100], "the slice came back different")
        expect(reply.get("status") == hashlib.md5(chunk).hexdigest(), reply)
        return {"put": len(data), "got": len(chunk)}

    step("reset", reset)
    step("echo with crc", echo_with_crc)
    step("id echoed", id_echoed)
    step("crc mismatch is io", crc_mismatch_is_io)
    step("command gets no reply", command_gets_no_reply)
    step("unknown is not-supported", unknown_is_not_supported)
    step("garbage is answered", garbage_is_answered)
    step("env round trip", env_round_trip)
    step("long paced request", long_paced_request)
    step("binary round trip", binary_round_trip)
    step("unpaced request overflows", unpaced_request_overflows)
    step("echo after all that", echo_with_crc)

    for r in results:
        print(json.dumps(r), flush=True)
    host.port.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
