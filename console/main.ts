import "./console.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, setCsrf, whenSignedOut } from "./api.js";
import { ErrorText, useAction } from "./components.js";
import { html } from "./html.js";
import { DevicePage } from "./pages/device.js";
import { DevicesPage } from "./pages/devices.js";
import { EventsPage } from "./pages/events.js";
import { FirmwarePage } from "./pages/firmware.js";
import { FleetsPage } from "./pages/fleets.js";
import { ModulePage } from "./pages/module.js";
import { ProjectsPage, type Project } from "./pages/projects.js";
import { RoutesPage } from "./pages/routes.js";

interface Me {
  username: string;
  name: string;
  csrf: string | null;
}

/** The page's place: `#/p/<project>/<page>/<id>`. */
function useHash(): string[] {
  const read = () => location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const changed = () => setParts(read());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return parts;
}

function SignIn(props: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await action.run(async () => {
      const me = await api<Me>("/console/api/login", { method: "POST", body: { email, password } });
      props.onSignedIn(me);
    });
  };
  return html`<main class="signin">
    <form onSubmit=${submit} aria-label="Sign in">
      <h1>cardsim console</h1>
      <label
        >Email or username
        <input
          name="email"
          autocomplete="username"
          required
          value=${email}
          onInput=${(e: Event) => setEmail((e.target as HTMLInputElement).value)}
        />
      </label>
      <label
        >Password
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value=${password}
          onInput=${(e: Event) => setPassword((e.target as HTMLInputElement).value)}
        />
      </label>
      <${ErrorText} error=${action.error} />
      <button type="submit" disabled=${action.busy}>Sign in</button>
      <p class="muted">
        The hub's accounts: the admin's username and password are in the hub's credentials.json.
      </p>
    </form>
  </main>`;
}

const PAGES: [string, string][] = [
  ["devices", "Devices"],
  ["events", "Events"],
  ["routes", "Routes"],
  ["fleets", "Fleets"],
  ["firmware", "Firmware"],
];

function ProjectPage(props: { project: Project; page: string; id: string | undefined }) {
  const { project, page, id } = props;
  const canEdit = project.role === "developer" || project.role === "owner";
  const common = { project: project.uid, canEdit };
  if (page === "devices" && id) return html`<${DevicePage} ...${common} device=${id} />`;
  if (page === "events") return html`<${EventsPage} ...${common} />`;
  if (page === "routes") return html`<${RoutesPage} ...${common} />`;
  if (page === "fleets") return html`<${FleetsPage} ...${common} />`;
  if (page === "firmware") return html`<${FirmwarePage} ...${common} />`;
  return html`<${DevicesPage} ...${common} />`;
}

function Shell(props: { me: Me; onSignOut: () => void }) {
  const parts = useHash();
  const [projects, setProjects] = useState<Project[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    api<{ projects: Project[] }>("/v1/projects").then(
      (r) => setProjects(r.projects),
      (e: Error) => setError(e.message),
    );
  }, []);
  const signOut = async () => {
    await api("/console/api/logout", { method: "POST" }).catch(() => undefined);
    props.onSignOut();
  };
  const [where, projectUid, page = "devices", id] = parts;
  const project = where === "p" ? projects?.find((p) => p.uid === projectUid) : undefined;
  return html`<div class="shell">
    <header>
      <a class="brand" href="#/">cardsim</a>
      ${
        project &&
        html`<span class="project">${project.label}</span>
          <nav>
            ${PAGES.map(
              ([key, label]) =>
                html`<a
                  href=${`#/p/${encodeURIComponent(project.uid)}/${key}`}
                  class=${page === key ? "current" : ""}
                  >${label}</a
                >`,
            )}
          </nav>`
      }
      <span class="who">${props.me.username}${project ? ` · ${project.role}` : ""}</span>
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    <main>
      <${ErrorText} error=${error} />
      ${where === "p" && projects && !project ? html`<p class="error">No project ${projectUid} for you here.</p>` : null}
      ${project ? html`<${ProjectPage} project=${project} page=${page} id=${id} />` : null}
      ${where !== "p" && projects ? html`<${ProjectsPage} projects=${projects} />` : null}
    </main>
  </div>`;
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  useEffect(() => {
    whenSignedOut(() => setMe(null));
    api<Me>("/console/api/me").then(
      (m) => {
        setCsrf(m.csrf);
        setMe(m);
      },
      () => setMe(null),
    );
  }, []);
  if (me === undefined) return html`<p class="muted">Loading…</p>`;
  if (me === null)
    return html`<${SignIn}
      onSignedIn=${(m: Me) => {
        setCsrf(m.csrf);
        setMe(m);
      }}
    />`;
  return html`<${Shell}
    me=${me}
    onSignOut=${() => {
      setCsrf(null);
      setMe(null);
    }}
  />`;
}

// The hub serves the console; a module's control server serves the module page with the same bundle.
const page = document.body.dataset["page"] === "module" ? html`<${ModulePage} />` : html`<${App} />`;
render(page, document.getElementById("app")!);
