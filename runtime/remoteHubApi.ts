import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { HubApi, HubApiError, type HubApiAnswer, type HubApiCall } from "./HubApi.js";
import { caText, parseHubUrl, releaseAgent, takeAgent } from "./HttpsHubLink.js";

/** A hub elsewhere that cannot be used as asked (unreachable, the token refused, no such product). */
export class HubElsewhereError extends Error {
  override readonly name = "HubElsewhereError";
}

/** Where a hub elsewhere serves its REST API, and how to be its project's owner there. */
export interface RemoteHubApiOptions {
  /** The hub's base URL (`https://HOST:PORT`; plain HTTP on loopback only), as `--hub` gives it. */
  readonly url: string;
  /** A bearer token of the project's owner (a hub's credentials.json `token`). */
  readonly token: string;
  /** The hub's CA certificate: PEM text or a file's path. */
  readonly ca?: string;
  /** The ProductUID the modules sync with: the project is the one that holds it. */
  readonly product?: string;
  /** Each call's time limit in ms (default 30 s). */
  readonly timeoutMs?: number;
}

/** A HubApi over HTTP(S) to a hub elsewhere, and the way to let go of its connections. */
export interface RemoteHubApi {
  readonly api: HubApi;
  close(): void;
}

/**
 * The REST API of a hub elsewhere (a `cardsim hub` over HTTPS, the same routes, errors and shapes
 * as in process), called as the project's owner with its token, on kept-alive connections that
 * trust the hub's CA. The project is found from the ProductUID (`GET /v1/products/{P}/project`),
 * or, with none given, is the token's only project. A hub that cannot be reached, refuses the
 * token or has no such product rejects with one line saying which.
 */
export async function connectHubApi(options: RemoteHubApiOptions): Promise<RemoteHubApi> {
  const base = parseHubUrl(options.url);
  const secure = base.protocol === "https:";
  const { key, agent } = takeAgent(secure, caText(options.ca));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const send = (call: HubApiCall): Promise<HubApiAnswer> =>
    new Promise((resolve, reject) => {
      const target = new URL(call.url, base);
      const started = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: call.method,
          agent,
          headers: {
            ...call.headers,
            ...(call.payload ? { "content-length": String(call.payload.length) } : {}),
          },
          timeout: timeoutMs,
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(response.headers)) {
              if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
            }
            resolve({ status: response.statusCode ?? 0, headers, raw: Buffer.concat(chunks) });
          });
        },
      );
      started.on("timeout", () =>
        started.destroy(new Error(`${call.method} ${target.pathname}: no answer in ${timeoutMs} ms`)),
      );
      started.on("error", (error: NodeJS.ErrnoException) =>
        reject(
          new HubElsewhereError(
            `the hub at ${base.origin} cannot be reached: ${error.code ?? error.message}`,
          ),
        ),
      );
      started.end(call.payload);
    });
  const nowhere = () => Promise.reject(new Error("a hub elsewhere listens already: use its URL"));
  const source = {
    send,
    token: options.token,
    projectUid: "",
    productUid: options.product ?? "",
    listen: nowhere,
    // A hub elsewhere delivers its routes on its own time.
    settle: () => Promise.resolve(),
  };
  try {
    const found = await findProject(new HubApi(source), options.product);
    const api = new HubApi({ ...source, ...found });
    return { api, close: () => releaseAgent(key) };
  } catch (error) {
    releaseAgent(key);
    throw error;
  }
}

/** The project that holds `product` (or the token's only project), and its product. */
async function findProject(
  probe: HubApi,
  product: string | undefined,
): Promise<{ projectUid: string; productUid: string }> {
  const refused = (path: string, status: number, body: unknown) => {
    if (status === 401 || status === 403)
      return new HubElsewhereError(`the hub refused the token (${status}): give the project owner's token`);
    return new HubApiError("GET", path, status, body);
  };
  if (product) {
    const path = `/v1/products/${encodeURIComponent(product)}/project`;
    const answer = await probe.request<{ uid?: string }>("GET", path);
    if (answer.status === 404)
      throw new HubElsewhereError(`the hub has no product ${product}: check --product`);
    if (answer.status !== 200 || typeof answer.body.uid !== "string")
      throw refused(path, answer.status, answer.body);
    return { projectUid: answer.body.uid, productUid: product };
  }
  const answer = await probe.request<{ projects?: { uid: string }[] }>("GET", "/v1/projects");
  if (answer.status !== 200) throw refused("/v1/projects", answer.status, answer.body);
  const projects = answer.body.projects ?? [];
  if (projects.length !== 1)
    throw new HubElsewhereError(
      `the token reaches ${projects.length} projects: give the ProductUID the modules sync with (--product)`,
    );
  const projectUid = projects[0]!.uid;
  const products = await probe.request<{ products?: { uid: string }[] }>(
    "GET",
    `/v1/projects/${encodeURIComponent(projectUid)}/products`,
  );
  return { projectUid, productUid: products.body.products?.[0]?.uid ?? "" };
}
