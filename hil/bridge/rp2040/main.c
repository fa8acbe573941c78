// cardsim RP2040 I2C bridge firmware: the Pico is the module's I2C target (address 0x17 by
// default, SDA GP4 / SCL GP5) and relays every transaction to cardsim over USB CDC. While cardsim
// prepares an answer the Pico stretches SCL, so the host never reads a half-staged answer.
// Build: see README.md (pico-sdk 1.5+ / 2.x, target pico or pico_w).
#include <stdio.h>

#include "bridge_core.h"
#include "hardware/gpio.h"
#include "hardware/i2c.h"
#include "hardware/sync.h"
#include "pico/i2c_slave.h"
#include "pico/stdio_usb.h"
#include "pico/stdlib.h"

#define BRIDGE_I2C i2c0
#define BRIDGE_SDA_PIN 4
#define BRIDGE_SCL_PIN 5
#define BRIDGE_DEFAULT_ADDRESS 0x17

static bridge_t bridge;

// Frames are queued here (the core may produce them inside the I2C interrupt, where USB stdio
// must not be used) and sent by the main loop.
#define OUT_SIZE 4096
static uint8_t out[OUT_SIZE];
static volatile size_t out_head, out_tail;

static void usb_write(const uint8_t *bytes, size_t length) {
  for (size_t i = 0; i < length; i++) {
    size_t next = (out_head + 1) % OUT_SIZE;
    if (next == out_tail) return; // full: the frame is cut short and the Pi drops it as garbled
    out[out_head] = bytes[i];
    out_head = next;
  }
}

static void flush_out(void) {
  uint8_t chunk[64];
  for (;;) {
    size_t n = 0;
    uint32_t state = save_and_disable_interrupts();
    while (out_tail != out_head && n < sizeof chunk) {
      chunk[n++] = out[out_tail];
      out_tail = (out_tail + 1) % OUT_SIZE;
    }
    restore_interrupts(state);
    if (n == 0) break;
    for (size_t i = 0; i < n; i++) putchar_raw(chunk[i]);
  }
  stdio_flush();
}

static uint32_t now_ms(void) { return to_ms_since_boot(get_absolute_time()); }

static void i2c_handler(i2c_inst_t *i2c, i2c_slave_event_t event) {
  switch (event) {
  case I2C_SLAVE_RECEIVE:
    while (i2c_get_read_available(i2c)) bridge_i2c_receive(&bridge, i2c_read_byte_raw(i2c));
    break;
  case I2C_SLAVE_REQUEST: {
    // Returning without writing leaves the TX FIFO empty: the controller's SCL stays stretched
    // until the main loop writes the byte.
    int byte = bridge_i2c_request(&bridge, now_ms());
    if (byte >= 0) i2c_write_byte_raw(i2c, (uint8_t)byte);
    break;
  }
  case I2C_SLAVE_FINISH:
    bridge_i2c_finish(&bridge);
    break;
  default:
    break;
  }
}

static void set_address(uint8_t address) {
  i2c_slave_deinit(BRIDGE_I2C);
  i2c_slave_init(BRIDGE_I2C, address, &i2c_handler);
}

int main(void) {
  stdio_init_all();
  stdio_set_translate_crlf(&stdio_usb, false);

  gpio_init(BRIDGE_SDA_PIN);
  gpio_set_function(BRIDGE_SDA_PIN, GPIO_FUNC_I2C);
  gpio_pull_up(BRIDGE_SDA_PIN);
  gpio_init(BRIDGE_SCL_PIN);
  gpio_set_function(BRIDGE_SCL_PIN, GPIO_FUNC_I2C);
  gpio_pull_up(BRIDGE_SCL_PIN);
  i2c_init(BRIDGE_I2C, 400 * 1000);

  bridge_io_t io = {.usb_write = usb_write, .set_address = set_address};
  uint32_t irq = save_and_disable_interrupts();
  bridge_init(&bridge, io, BRIDGE_DEFAULT_ADDRESS);
  i2c_slave_init(BRIDGE_I2C, BRIDGE_DEFAULT_ADDRESS, &i2c_handler);
  restore_interrupts(irq);

  for (;;) {
    int c = getchar_timeout_us(100);
    // The core is shared with the I2C interrupt: update it with that interrupt masked.
    uint32_t state = save_and_disable_interrupts();
    if (c >= 0) bridge_usb_byte(&bridge, (uint8_t)c);
    int byte = bridge_poll(&bridge, now_ms());
    if (byte >= 0) i2c_write_byte_raw(BRIDGE_I2C, (uint8_t)byte);
    restore_interrupts(state);
    flush_out();
  }
}
