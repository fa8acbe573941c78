/** A listening address given as `HOST:PORT` (`[::1]:7480` for IPv6; port 0 picks a free one). */
export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(text: string, what = "address"): HostPort {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text.trim()) ?? /^([^:]+):(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`${what} "${text}" is not HOST:PORT (e.g. 127.0.0.1:7480 or [::1]:7480)`);
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${what} "${text}": port must be 0 to 65535`);
  return { host: m[1]!, port };
}

/** The host to put in a URL for a listening host: wildcards become the loopback address. */
export function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
