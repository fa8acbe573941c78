/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * An operation of the current definition that the official client (1.0.27-beta.5) has no API
 * class for, through its ApiClient's own `callApi`, the machinery every generated class uses:
 * the `api_key` authentication, JSON both ways, the client's error handling. Resolves with the
 * client's `{ data, response }`.
 */
export function callOperation(
  client: any,
  method: string,
  path: string,
  pathParams: object,
  { query = {}, body = null }: { query?: object; body?: unknown } = {},
): Promise<any> {
  return client.callApi(
    path,
    method,
    pathParams,
    query,
    {},
    {},
    body,
    ["api_key"],
    ["application/json"],
    ["application/json"],
    Object,
    null,
  );
}
