/** The hub's live feed in the page: an EventSource that says when it dropped and came back. */

export type StreamState = "connecting" | "live" | "reconnecting";

export interface FeedItem {
  kind: "event" | "session" | "delivery" | "dfu";
  projectUid: string;
  deviceUid: string;
  atMs: number;
  file?: string;
  event?: Record<string, unknown>;
  [key: string]: unknown;
}

const KINDS = ["event", "session", "delivery", "dfu"] as const;

/**
 * Follows `/console/api/stream` with the filters given. The browser reconnects a dropped stream
 * by itself; a stream the hub closed for good (a restart) is opened again after two seconds.
 * Returns the function that stops it.
 */
export function follow(
  filters: Record<string, string>,
  onItem: (item: FeedItem) => void,
  onState: (state: StreamState) => void,
): () => void {
  let source: EventSource | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const open = () => {
    const url = `/console/api/stream?${new URLSearchParams(filters).toString()}`;
    source = new EventSource(url, { withCredentials: true });
    source.addEventListener("hello", () => onState("live"));
    for (const kind of KINDS) {
      source.addEventListener(kind, (message) => onItem(JSON.parse((message as MessageEvent<string>).data)));
    }
    source.onerror = () => {
      if (stopped) return;
      onState("reconnecting");
      if (source?.readyState === EventSource.CLOSED) {
        source.close();
        retry = setTimeout(open, 2000);
      }
    };
  };
  onState("connecting");
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
  };
}

/** What a stream's state says to the person looking. */
export function stateText(state: StreamState, wasDropped: boolean): string {
  if (state === "live") return wasDropped ? "Live again: the stream reconnected" : "Live";
  if (state === "reconnecting") return "The stream dropped: reconnecting…";
  return "Connecting to the live stream…";
}
