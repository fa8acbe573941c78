/**
 * The one error type of the module. `tags` are the brace keywords hosts test for (`io`,
 * `note-noexist`, ...); `message` is the complete `err` text sent to the host, tags included.
 * Every error text is written in `errors.ts`, so wording and tags stay consistent.
 */
export class SimError extends Error {
  override readonly name = "SimError";

  constructor(
    message: string,
    readonly tags: readonly string[],
    /** Extra members sent beside `err` in the reply (e.g. `status` of a heartbeat). */
    readonly fields?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }

  has(tag: string): boolean {
    return this.tags.includes(tag);
  }
}

/** Builds a SimError from a text whose `{tags}` are parsed out of it. */
export function simError(text: string, fields?: Record<string, unknown>): SimError {
  const tags = [...text.matchAll(/\{([a-z0-9-]+)\}/g)].map((m) => m[1] as string);
  return new SimError(text, tags, fields);
}
