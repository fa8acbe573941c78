// cardsim RP2040 I2C bridge: the portable core (no SDK calls), shared by the firmware (main.c)
// and the host build used in CI (bridge_host.c). Protocol: see PROTOCOL.md beside this file.
#ifndef CARDSIM_BRIDGE_CORE_H
#define CARDSIM_BRIDGE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define BRIDGE_VERSION 1
#define BRIDGE_MAX_XFER 260            // one I2C transaction: 255-byte chunk + header, rounded up
#define BRIDGE_MAX_FRAME (BRIDGE_MAX_XFER + 4)
#define BRIDGE_MAX_STRETCH_MS 50       // longest SCL hold while waiting for the Pi to stage
#define BRIDGE_FILLER 0xff             // what an abandoned read clocks out (released bus)

// Frame types (first byte of a frame's payload).
#define FRAME_HELLO 'H'   // bridge -> pi: [H][version][address]
#define FRAME_WRITE 'W'   // bridge -> pi: [W][seq][bytes...]  one controller write
#define FRAME_READ 'R'    // bridge -> pi: [R][seq]            a read is waiting (clock stretched)
#define FRAME_DONE 'D'    // bridge -> pi: [D][seq][served lo][served hi][flags] a read finished
#define FRAME_ADDRESS 'A' // pi -> bridge: [A][address]         set the target address
#define FRAME_STAGE 'S'   // pi -> bridge: [S][seq][bytes...]  answer to the write `seq`
#define FRAME_PING 'P'    // pi -> bridge: [P]                  bridge answers HELLO

#define DONE_FLAG_UNDERRUN 0x01 // some bytes were filler (stage late or too short)

typedef struct bridge bridge_t;

typedef struct {
  // Sends bytes to the Pi (USB CDC).
  void (*usb_write)(const uint8_t *bytes, size_t length);
  // Changes the I2C target address (re-initialises the peripheral).
  void (*set_address)(uint8_t address);
} bridge_io_t;

struct bridge {
  bridge_io_t io;
  uint8_t address;
  // Controller -> target bytes of the transaction in progress.
  uint8_t rx[BRIDGE_MAX_XFER];
  size_t rx_length;
  bool rx_overflow;
  // Answer staged by the Pi for the write `staged_seq`.
  uint8_t staged[BRIDGE_MAX_XFER];
  size_t staged_length;
  size_t staged_pos;
  uint8_t staged_seq;
  bool staged_valid;
  // Sequence number of the last controller write.
  uint8_t seq;
  // Read in progress.
  bool reading;
  size_t served;
  bool underrun;
  bool waiting;          // a byte was requested and nothing was staged yet (stretching)
  uint32_t waiting_since;
  // USB frame being received.
  uint8_t frame[BRIDGE_MAX_FRAME * 2];
  size_t frame_length;
};

void bridge_init(bridge_t *b, bridge_io_t io, uint8_t address);

// USB side: one byte from the Pi.
void bridge_usb_byte(bridge_t *b, uint8_t byte);

// I2C side (called from the I2C interrupt):
void bridge_i2c_receive(bridge_t *b, uint8_t byte);
// The controller wants the next byte: returns it (0..255), or -1 to keep stretching.
int bridge_i2c_request(bridge_t *b, uint32_t now_ms);
// STOP or repeated START: the transaction is over.
void bridge_i2c_finish(bridge_t *b);

// Main loop: if a stretched read can now be answered (stage arrived or gave up), the byte to
// send, else -1.
int bridge_poll(bridge_t *b, uint32_t now_ms);

// COBS with 0x00 as the frame delimiter (exposed for tests).
size_t bridge_cobs_encode(const uint8_t *in, size_t length, uint8_t *out);
// Returns the decoded length, or (size_t)-1 on malformed input.
size_t bridge_cobs_decode(const uint8_t *in, size_t length, uint8_t *out);

#endif
