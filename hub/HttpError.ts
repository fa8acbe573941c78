/**
 * The one error type of the hub's HTTP API. It becomes the `{err, code, status, request?,
 * details?}` body every operation answers with on failure (spec: the default error response).
 * Every text is written in `errors.ts`.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";

  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers (Retry-After, WWW-Authenticate). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** An OAuth 2.0 token-endpoint error: answered as `{error, error_description}` (RFC 6749 §5.2). */
export class OAuthError extends Error {
  override readonly name = "OAuthError";

  constructor(
    readonly statusCode: 400 | 401 | 403,
    readonly error:
      | "invalid_request"
      | "invalid_client"
      | "invalid_grant"
      | "unauthorized_client"
      | "unsupported_grant_type"
      | "invalid_scope",
    readonly description: string,
  ) {
    super(description);
  }
}
