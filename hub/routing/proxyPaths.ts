/** A proxy route's URL with the request's `name` appended: one slash between them, a query as is. */
export function proxyUrl(base: string, name: string): string {
  if (name === "") return base;
  if (name.startsWith("?")) return base + name;
  return `${base.replace(/\/+$/, "")}/${name.replace(/^\/+/, "")}`;
}

/** A `..` segment, between slashes or backslashes (checked decoded too). */
const DOT_SEGMENT = /(^|[/\\])\.\.([/\\?#]|$)/;

/**
 * The URL a web request through a proxy route reaches: `name` appended to the route's URL
 * (proxyUrl) and resolved, which must stay under the route's URL (its origin, and its path as a
 * folder); undefined when it would leave it (`../secret`, `%2e%2e/secret`, `/..\secret`, …).
 */
export function proxyTargetUrl(base: string, name: string): string | undefined {
  let baseUrl: URL;
  let url: URL;
  try {
    baseUrl = new URL(base);
    url = new URL(proxyUrl(base, name));
  } catch {
    return undefined;
  }
  if (url.origin !== baseUrl.origin || url.username !== baseUrl.username) return undefined;
  // The path as given, decoded (twice: an endpoint may decode again): no dot segments at all.
  const path = name.split(/[?#]/, 1)[0]!;
  let decoded = path;
  for (let i = 0; i < 3; i++) {
    if (DOT_SEGMENT.test(decoded)) return undefined;
    try {
      const next = decodeURIComponent(decoded);
      if (next === decoded) break;
      decoded = next;
    } catch {
      break;
    }
  }
  if (DOT_SEGMENT.test(decoded)) return undefined;
  const folder = baseUrl.pathname.endsWith("/") ? baseUrl.pathname : `${baseUrl.pathname}/`;
  if (url.pathname !== baseUrl.pathname && !url.pathname.startsWith(folder)) return undefined;
  return url.href;
}
