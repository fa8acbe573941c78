// Host build of the bridge core for CI: the same protocol code as the firmware, on a tty (one end
// of a pty pair) instead of USB, with the I2C controller scripted on stdin:
//   w HEX...   one controller write transaction      -> "ok"
//   r N        one controller read of N bytes         -> "data HEX" ("stretched MS" first if it waited)
//   q          quit
// Events: "address HEX" when cardsim sets the address. Build: cc -o bridge_host bridge_host.c bridge_core.c
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bridge_core.h"

static int tty = -1;
static bridge_t bridge;

static uint32_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void usb_write(const uint8_t *bytes, size_t length) {
  while (length > 0) {
    ssize_t n = write(tty, bytes, length);
    if (n <= 0) exit(3);
    bytes += n;
    length -= (size_t)n;
  }
}

static void set_address(uint8_t address) {
  printf("address %02x\n", address);
  fflush(stdout);
}

// Feeds whatever the tty has to the core, waiting up to `ms`.
static void service_usb(int ms) {
  struct pollfd p = {.fd = tty, .events = POLLIN};
  if (poll(&p, 1, ms) <= 0) return;
  uint8_t buffer[512];
  ssize_t n = read(tty, buffer, sizeof buffer);
  for (ssize_t i = 0; i < n; i++) bridge_usb_byte(&bridge, buffer[i]);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bridge_host TTY\n");
    return 2;
  }
  tty = open(argv[1], O_RDWR | O_NOCTTY);
  if (tty < 0) {
    perror("open");
    return 2;
  }
  struct termios t;
  if (tcgetattr(tty, &t) == 0) {
    cfmakeraw(&t);
    tcsetattr(tty, TCSANOW, &t);
  }
  bridge_io_t io = {.usb_write = usb_write, .set_address = set_address};
  bridge_init(&bridge, io, 0x17);
  printf("ready\n");
  fflush(stdout);

  char line[4096];
  for (;;) {
    struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = tty, .events = POLLIN}};
    if (poll(fds, 2, 10) < 0) return 1;
    if (fds[1].revents & POLLIN) service_usb(0);
    if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;
    if (!fgets(line, sizeof line, stdin)) return 0;
    if (line[0] == 'q') return 0;
    if (line[0] == 'w') {
      char *p = line + 1;
      for (;;) {
        char *end;
        long v = strtol(p, &end, 16);
        if (end == p) break;
        bridge_i2c_receive(&bridge, (uint8_t)v);
        p = end;
      }
      bridge_i2c_finish(&bridge);
      printf("ok\n");
    } else if (line[0] == 'r') {
      int count = atoi(line + 1);
      uint32_t started = now_ms();
      uint32_t stretched = 0;
      printf("data");
      for (int i = 0; i < count; i++) {
        int byte = bridge_i2c_request(&bridge, now_ms());
        while (byte < 0) {
          uint32_t before = now_ms();
          service_usb(1);
          byte = bridge_poll(&bridge, now_ms());
          stretched += now_ms() - before;
        }
        printf(" %02x", byte);
      }
      bridge_i2c_finish(&bridge);
      printf("\nstretched %u\n", stretched);
      (void)started;
    }
    fflush(stdout);
  }
}
