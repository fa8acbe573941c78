import { useEffect, useState } from "preact/hooks";
import { api, projectPath, query } from "../api.js";
import { ErrorText, Heading, jsonText, Pager, payloadText, when } from "../components.js";
import { html } from "../html.js";
import { follow, stateText, type FeedItem, type StreamState } from "../live.js";

export interface EventDoc {
  event: string;
  device: string;
  file: string;
  when?: number;
  received?: number;
  body?: unknown;
  payload?: string;
  req?: string;
  [key: string]: unknown;
}

const PAGE_SIZE = 50;

/** A table of events: time, device, notefile, body (as text), payload size. */
export function EventTable(props: { events: EventDoc[]; project: string; fresh?: Set<string> }) {
  const base = `#/p/${encodeURIComponent(props.project)}/devices/`;
  return html`<table class="grid events">
    <thead>
      <tr>
        <th>Captured</th>
        <th>Received</th>
        <th>Device</th>
        <th>Notefile</th>
        <th>Body</th>
        <th>Payload</th>
      </tr>
    </thead>
    <tbody>
      ${props.events.map(
        (e) =>
          html`<tr key=${e.event} class=${props.fresh?.has(e.event) ? "fresh" : ""} data-event=${e.event}>
            <td>${when(e.when)}</td>
            <td>${when(e.received)}</td>
            <td class="mono"><a href=${base + encodeURIComponent(e.device)}>${e.device}</a></td>
            <td class="mono">${e.file}${e.req && e.file === "_session.qo" ? ` ${e.req}` : ""}</td>
            <td class="mono body">${jsonText(e.body)}</td>
            <td class="mono">${payloadText(e.payload)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * Follows the live stream; says when it dropped and when it is back, and calls `onBack` then (what
 * arrived while the stream was down is read again from the API).
 */
export function useLive(
  filters: Record<string, string>,
  onItem: (item: FeedItem) => void,
  deps: unknown[],
  onBack: () => void = () => undefined,
): string {
  const [state, setState] = useState<StreamState>("connecting");
  const [dropped, setDropped] = useState(false);
  useEffect(() => {
    let down = false;
    return follow(filters, onItem, (s) => {
      if (s === "reconnecting") {
        down = true;
        setDropped(true);
      } else if (s === "live" && down) {
        down = false;
        onBack();
      }
      setState(s);
    });
  }, deps);
  return stateText(state, dropped);
}

/** The project's events: filters, pages, a CSV download, and new ones as they arrive. */
export function EventsPage(props: { project: string }) {
  const [draft, setDraft] = useState({ deviceUID: "", files: "" });
  const [filters, setFilters] = useState(draft);
  const [page, setPage] = useState(1);
  const [events, setEvents] = useState<EventDoc[] | undefined>(undefined);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [fresh, setFresh] = useState(new Set<string>());
  const listQuery = { pageSize: PAGE_SIZE, pageNum: page, sortBy: "modified", sortOrder: "desc", ...filters };
  const load = () =>
    api<{ events: EventDoc[]; has_more: boolean }>(
      projectPath(props.project, "events") + query(listQuery),
    ).then(
      (r) => {
        setEvents(r.events);
        setHasMore(r.has_more);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => void load(), [props.project, page, filters]);
  const live = useLive(
    {
      project: props.project,
      kinds: "event",
      ...(filters.deviceUID ? { device: filters.deviceUID } : {}),
      ...(filters.files ? { file: filters.files } : {}),
    },
    (item) => {
      if (item.kind !== "event" || !item.event || page !== 1) return;
      const doc = item.event as EventDoc;
      setFresh((f) => new Set(f).add(doc.event));
      setEvents((list) =>
        list?.some((e) => e.event === doc.event) ? list : [doc, ...(list ?? [])].slice(0, PAGE_SIZE),
      );
    },
    [props.project, filters, page],
    () => void load(),
  );
  const csv =
    projectPath(props.project, "events") +
    query({ ...listQuery, format: "csv", pageSize: 10000, pageNum: 1 });
  const input = (name: keyof typeof draft, label: string, hint: string) =>
    html`<label
      >${label}
      <input
        name=${name}
        placeholder=${hint}
        value=${draft[name]}
        onInput=${(e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
    /></label>`;
  return html`<section>
    <${Heading} title="Events">
      <span class="live" role="status">${live}</span>
      <a class="button" href=${csv} download="events.csv">Download CSV</a>
    </${Heading}>
    <form class="filters" onSubmit=${(e: Event) => {
      e.preventDefault();
      setPage(1);
      setFilters(draft);
    }}>
      ${input("deviceUID", "Device", "dev:…")} ${input("files", "Notefiles", "data.qo,_session.qo")}
      <button type="submit">Filter</button>
    </form>
    <${ErrorText} error=${error} />
    ${
      events === undefined
        ? html`<p class="muted">Loading…</p>`
        : html`<${EventTable} events=${events} project=${props.project} fresh=${fresh} />
            ${events.length === 0 ? html`<p class="muted">No event yet.</p>` : null}
            <${Pager} page=${page} hasMore=${hasMore} onPage=${setPage} />`
    }
  </section>`;
}
