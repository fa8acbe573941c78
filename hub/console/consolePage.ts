import { consoleFiles } from "./consoleBundle.js";

/** What the console's page may load and reach: its own origin only, nothing inline. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

/** The headers every console response carries. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * The console's page: the hub's console, or the module page a module's control server serves
 * (`data-page` tells the bundle which to show).
 */
export function consolePage(page: "hub" | "module"): string {
  const title = page === "hub" ? "cardsim console" : "cardsim module";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body data-page="${page}"><div id="app"><noscript>The ${title} needs JavaScript.</noscript></div></body>
</html>
`;
}

const TYPES: Record<string, string> = {
  "console.js": "text/javascript; charset=utf-8",
  "console.css": "text/css; charset=utf-8",
};

/** A file of the console's bundle (`console.js`, `console.css`) and its type; undefined for another name. */
export async function consoleAsset(name: string): Promise<{ type: string; body: Buffer } | undefined> {
  const type = TYPES[name];
  if (!type) return undefined;
  return { type, body: (await consoleFiles()).get(name)! };
}
