/** The hub's REST API as the console calls it: the session cookie, the CSRF token on changes. */

let csrf: string | null = null;
let onSignedOut: () => void = () => undefined;

export function setCsrf(token: string | null): void {
  csrf = token;
}

/** Called when the hub answers 401: the session ended (signed out elsewhere, expired). */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

/** The hub refused: its status and its own error text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  method?: string;
  /** A JSON body. */
  body?: unknown;
  /** A raw body (a firmware image), sent as application/octet-stream. */
  bytes?: ArrayBuffer;
}

async function send(path: string, options: CallOptions): Promise<Response> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET" && method !== "HEAD" && csrf) headers["x-csrf-token"] = csrf;
  let body: BodyInit | undefined;
  if (options.bytes !== undefined) {
    headers["content-type"] = "application/octet-stream";
    body = options.bytes;
  } else if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  try {
    return await fetch(path, { method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiError(
      0,
      "The hub did not answer: is it running? Nothing you typed is lost: try again once it is back",
    );
  }
}

/** Calls the API; resolves with its JSON, or rejects with an ApiError carrying the API's `err`. */
export async function api<T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<T> {
  const response = await send(path, options);
  const text = await response.text();
  let json: Record<string, unknown>;
  try {
    json = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    json = { err: text };
  }
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith("/console/api/login")) onSignedOut();
    throw new ApiError(response.status, String(json["err"] ?? `the hub answered HTTP ${response.status}`));
  }
  return json as T;
}

/** A path of the project API, each part encoded. */
export function projectPath(project: string, ...parts: string[]): string {
  return `/v1/projects/${encodeURIComponent(project)}${parts.map((p) => `/${encodeURIComponent(p)}`).join("")}`;
}

/** A query string from the values given (empty ones left out). */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
