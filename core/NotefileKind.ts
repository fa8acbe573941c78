/** What a notefile's extension says about it (spec: "Datafile extensions fix behavior"). */
export interface NotefileKind {
  readonly extension: "qo" | "qos" | "qi" | "qis" | "db" | "dbs" | "dbx";
  /** Queues hand notes out oldest first and have no host-visible note IDs; databases are keyed. */
  readonly queue: boolean;
  /** `out`: module to hub; `in`: hub to module; `both`: synchronized database; `local`: never syncs. */
  readonly direction: "out" | "in" | "both" | "local";
  /** Synchronized only over encrypted sessions. */
  readonly secure: boolean;
}

const KINDS: Record<string, NotefileKind> = {
  qo: { extension: "qo", queue: true, direction: "out", secure: false },
  qos: { extension: "qos", queue: true, direction: "out", secure: true },
  qi: { extension: "qi", queue: true, direction: "in", secure: false },
  qis: { extension: "qis", queue: true, direction: "in", secure: true },
  db: { extension: "db", queue: false, direction: "both", secure: false },
  dbs: { extension: "dbs", queue: false, direction: "both", secure: true },
  dbx: { extension: "dbx", queue: false, direction: "local", secure: false },
};

/** The kind of a notefile name, or undefined when its extension is not one of the seven. */
export function notefileKind(name: string): NotefileKind | undefined {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return KINDS[name.slice(dot + 1)];
}
