/**
 * note-c's host-side timing (blues/note-c `n_lib.h`, `n_serial.c`, `n_i2c.c`, `n_request.c`),
 * reproduced by the host emulator. Every value can be overridden, to model other host libraries
 * or a misbehaving host (`paceSegments: false` is a host that ignores segment pacing).
 */
export interface NoteCTiming {
  /** Serial request segment size (CARD_REQUEST_SERIAL_SEGMENT_MAX_LEN). */
  readonly serialSegmentBytes: number;
  /** Pause between serial segments, none after the last (CARD_REQUEST_SERIAL_SEGMENT_DELAY_MS). */
  readonly serialSegmentDelayMs: number;
  /** False: send the whole request at once, as a host ignoring the module's advice would. */
  readonly paceSegments: boolean;
  /** How long a reset listens for the answer to its newline (CARD_RESET_DRAIN_MS). */
  readonly resetDrainMs: number;
  /** Newlines a serial reset tries before giving up (CARD_RESET_SYNC_RETRIES). */
  readonly resetSyncRetries: number;
  /** Retries of a failed request (CARD_REQUEST_RETRIES_ALLOWED: 6 attempts in all). */
  readonly requestRetries: number;
  /** Pause before a retry (RETRY_DELAY_MS). */
  readonly retryDelayMs: number;
  /** Longest silence between two bytes of a reply (CARD_INTRA_TRANSACTION_TIMEOUT_SEC). */
  readonly intraTransactionTimeoutMs: number;
  /** Wait for a reply's first byte (CARD_INTER_TRANSACTION_TIMEOUT_SEC). */
  readonly transactionTimeoutMs: number;
  /** How often note-c polls a serial port for the first byte of a reply. */
  readonly serialPollMs: number;
  /** I2C: bytes per write transaction (NOTE_I2C_MAX_DEFAULT; 253 at most). */
  readonly i2cMtu: number;
  /** I2C: pause before every transaction (delayIO). */
  readonly i2cIoDelayMs: number;
  /** I2C: pause after every write chunk (CARD_REQUEST_I2C_CHUNK_DELAY_MS). */
  readonly i2cChunkDelayMs: number;
  /** I2C: extra pause after every 250 bytes written (CARD_REQUEST_I2C_SEGMENT_MAX_LEN / _DELAY_MS). */
  readonly i2cSegmentBytes: number;
  readonly i2cSegmentDelayMs: number;
  /** I2C: interval of `[0][0]` polls while waiting for a reply. */
  readonly i2cPollMs: number;
  /** I2C: how long the first poll loop waits for a reply to start. */
  readonly i2cQueryTimeoutMs: number;
  /** I2C: pause after the host's write is not acknowledged (CARD_REQUEST_I2C_NACK_WAIT_MS). */
  readonly i2cNackWaitMs: number;
  /** I2C: pause between the `[0][R]` query and the read (note-arduino: 2 ms). */
  readonly i2cReadGapMs: number;
}

export const NOTE_C_TIMING: NoteCTiming = {
  serialSegmentBytes: 250,
  serialSegmentDelayMs: 250,
  paceSegments: true,
  resetDrainMs: 500,
  resetSyncRetries: 10,
  requestRetries: 5,
  retryDelayMs: 500,
  intraTransactionTimeoutMs: 1000,
  transactionTimeoutMs: 30_000,
  serialPollMs: 10,
  i2cMtu: 30,
  i2cIoDelayMs: 6,
  i2cChunkDelayMs: 20,
  i2cSegmentBytes: 250,
  i2cSegmentDelayMs: 250,
  i2cPollMs: 50,
  i2cQueryTimeoutMs: 5000,
  i2cNackWaitMs: 1000,
  i2cReadGapMs: 2,
};
