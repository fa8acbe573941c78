/** Why a store operation refused: a conflict or a missing record the caller must report. */
export type StoreErrorCode =
  "note-exists" | "note-noexist" | "notefile-exists" | "notefile-noexist" | "conflict" | "not-found";

/**
 * The one error type the store throws for expected refusals. Every backend throws the same codes,
 * so the API maps them to HTTP statuses in one place.
 */
export class StoreError extends Error {
  override readonly name = "StoreError";

  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}
