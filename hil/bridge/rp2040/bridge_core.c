// cardsim RP2040 I2C bridge: portable core. See bridge_core.h and PROTOCOL.md.
#include "bridge_core.h"

#include <string.h>

size_t bridge_cobs_encode(const uint8_t *in, size_t length, uint8_t *out) {
  size_t code_at = 0, o = 1;
  uint8_t code = 1;
  for (size_t i = 0; i < length; i++) {
    if (in[i] == 0) {
      out[code_at] = code;
      code_at = o++;
      code = 1;
      continue;
    }
    out[o++] = in[i];
    if (++code == 0xff) {
      out[code_at] = code;
      code_at = o++;
      code = 1;
    }
  }
  out[code_at] = code;
  return o;
}

size_t bridge_cobs_decode(const uint8_t *in, size_t length, uint8_t *out) {
  size_t i = 0, o = 0;
  if (length == 0) return (size_t)-1;
  while (i < length) {
    uint8_t code = in[i];
    if (code == 0 || i + code > length) return (size_t)-1;
    for (size_t j = i + 1; j < i + code; j++) {
      if (in[j] == 0) return (size_t)-1;
      out[o++] = in[j];
    }
    i += code;
    if (code != 0xff && i < length) out[o++] = 0;
  }
  return o;
}

static void send_frame(bridge_t *b, const uint8_t *payload, size_t length) {
  uint8_t encoded[BRIDGE_MAX_FRAME + BRIDGE_MAX_FRAME / 254 + 3];
  size_t n = bridge_cobs_encode(payload, length, encoded);
  encoded[n++] = 0;
  b->io.usb_write(encoded, n);
}

static void send_hello(bridge_t *b) {
  uint8_t hello[3] = {FRAME_HELLO, BRIDGE_VERSION, b->address};
  send_frame(b, hello, sizeof hello);
}

void bridge_init(bridge_t *b, bridge_io_t io, uint8_t address) {
  memset(b, 0, sizeof *b);
  b->io = io;
  b->address = address;
  send_hello(b);
}

static void handle_frame(bridge_t *b, const uint8_t *p, size_t length) {
  if (length == 0) return;
  switch (p[0]) {
  case FRAME_PING:
    send_hello(b);
    break;
  case FRAME_ADDRESS:
    if (length >= 2 && p[1] >= 0x08 && p[1] <= 0x77) {
      b->address = p[1];
      b->io.set_address(p[1]);
    }
    send_hello(b);
    break;
  case FRAME_STAGE:
    // Only the answer to the latest write counts: a late stage for an older one is dropped.
    if (length >= 2 && p[1] == b->seq && length - 2 <= BRIDGE_MAX_XFER) {
      memcpy(b->staged, p + 2, length - 2);
      b->staged_length = length - 2;
      b->staged_pos = 0;
      b->staged_seq = p[1];
      b->staged_valid = true;
    }
    break;
  default:
    break;
  }
}

void bridge_usb_byte(bridge_t *b, uint8_t byte) {
  if (byte != 0) {
    if (b->frame_length < sizeof b->frame) b->frame[b->frame_length++] = byte;
    else b->frame_length = sizeof b->frame + 1; // too long: drop at the delimiter
    return;
  }
  if (b->frame_length > 0 && b->frame_length <= sizeof b->frame) {
    uint8_t decoded[sizeof b->frame];
    size_t n = bridge_cobs_decode(b->frame, b->frame_length, decoded);
    if (n != (size_t)-1) handle_frame(b, decoded, n);
  }
  b->frame_length = 0;
}

void bridge_i2c_receive(bridge_t *b, uint8_t byte) {
  if (b->rx_length < BRIDGE_MAX_XFER) b->rx[b->rx_length++] = byte;
  else b->rx_overflow = true;
}

static int next_staged(bridge_t *b) {
  b->served++;
  if (b->staged_valid && b->staged_seq == b->seq && b->staged_pos < b->staged_length)
    return b->staged[b->staged_pos++];
  b->underrun = true;
  return BRIDGE_FILLER;
}

int bridge_i2c_request(bridge_t *b, uint32_t now_ms) {
  if (!b->reading) {
    b->reading = true;
    b->served = 0;
    b->underrun = false;
  }
  if (b->staged_valid && b->staged_seq == b->seq) return next_staged(b);
  // Nothing staged for this write yet: hold SCL and tell the Pi.
  if (!b->waiting) {
    b->waiting = true;
    b->waiting_since = now_ms;
    uint8_t read[2] = {FRAME_READ, b->seq};
    send_frame(b, read, sizeof read);
  }
  return -1;
}

int bridge_poll(bridge_t *b, uint32_t now_ms) {
  if (!b->waiting) return -1;
  if (b->staged_valid && b->staged_seq == b->seq) {
    b->waiting = false;
    return next_staged(b);
  }
  if (now_ms - b->waiting_since >= BRIDGE_MAX_STRETCH_MS) {
    b->waiting = false;
    b->underrun = true;
    b->served++;
    return BRIDGE_FILLER;
  }
  return -1;
}

void bridge_i2c_finish(bridge_t *b) {
  if (b->reading) {
    uint8_t done[5] = {FRAME_DONE, b->seq, (uint8_t)(b->served & 0xff), (uint8_t)(b->served >> 8),
                       (uint8_t)(b->underrun ? DONE_FLAG_UNDERRUN : 0)};
    send_frame(b, done, sizeof done);
    b->reading = false;
    b->waiting = false;
    b->staged_valid = false; // an answer is served once
  }
  if (b->rx_length > 0) {
    uint8_t frame[BRIDGE_MAX_XFER + 2];
    b->seq++;
    frame[0] = FRAME_WRITE;
    frame[1] = b->seq;
    memcpy(frame + 2, b->rx, b->rx_length);
    send_frame(b, frame, b->rx_length + 2);
    b->rx_length = 0;
    b->rx_overflow = false;
    b->staged_valid = false;
  }
}
