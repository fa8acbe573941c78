import type Database from "better-sqlite3";

/** Tables a statement reads or writes; `null`: any table (what it touches is not known). */
export type Tables = readonly string[] | null;

/** The leading `INSERT`/`REPLACE`/`UPDATE`/`DELETE` of a write and the table it names. */
const WRITE =
  /^\s*(?:(?:INSERT|UPDATE)(?:\s+OR\s+(?:ROLLBACK|ABORT|REPLACE|FAIL|IGNORE))?|REPLACE)\s+(?:INTO\s+)?|^\s*DELETE\s+FROM\s+/i;
const NAME = /^(?:main\s*\.\s*)?("?)([A-Za-z_][A-Za-z0-9_]*)\1(?=[\s(]|$)/i;
/** A name after FROM or JOIN: a table or a view, unless `(` follows (a table-valued function). */
const SOURCE = /\b(?:FROM|JOIN)\s+(?:main\s*\.\s*)?("?)([A-Za-z_][A-Za-z0-9_]*)\1(?!\s*\()/gi;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;
/** Read statements whose values are kept, by text (for each of `get` and `all`). */
const MAX_STATEMENTS = 1000;

/** A value kept (wrapped: a `get` may find no row). */
interface Kept {
  readonly value: unknown;
}

/**
 * Values by their parameters. Parameters that are all strings (the usual uids) are looked up one
 * level a parameter, under their count: by the strings the caller holds, whose hash V8 keeps, with
 * no key text made (a key concatenated anew is hashed anew at every lookup, about a microsecond).
 * Any other parameters are keyed by their JSON text, a string: never one of the counts.
 */
type Level = Map<unknown, Kept | Level>;

/**
 * One read statement's text (`get` or `all`): its values by parameters, emptied whenever a table it
 * reads is written.
 */
interface Reads {
  readonly entries: Level;
  /** How many values `entries` holds. */
  count: number;
}

/** What the schema says a write reaches beyond its own table. */
interface Schema {
  /** SQLite's schema_version when read. */
  readonly version: number;
  /** Tables, by lower-case name. */
  readonly tables: ReadonlySet<string>;
  /** Views, by lower-case name, and the tables each reads (null: not followed). */
  readonly views: ReadonlyMap<string, Tables>;
  /** Tables with triggers: what a write to them changes is not followed. */
  readonly triggered: ReadonlySet<string>;
  /**
   * Parent table -> the tables a foreign key action (CASCADE, SET NULL, ...) changes when one of its
   * rows is deleted (`delete`), or its key updated (`update`).
   */
  readonly actions: { readonly [K in "delete" | "update"]: ReadonlyMap<string, readonly string[]> };
  /** Tables whose constraints replace a conflicting row (`ON CONFLICT REPLACE`): an insert may delete. */
  readonly replacing: ReadonlySet<string>;
}

/**
 * A connection's reads answered from memory until a table they read changes. Each write names the
 * table it changes (parsed from its SQL once per statement text, with the tables foreign key actions
 * change with it), and empties at once the values of the read statements that name it (their tables
 * and views): nothing stale is kept. Whatever is not understood (DDL, a trigger, a name not in the
 * schema, a rollback, another connection's commit) empties the cache as a whole (`changedAll`).
 */
export class ReadCache {
  readonly #db: Database.Database;
  readonly #max: number;
  /**
   * By statement text, for `get` and for `all`: a text from the store's source is the same string
   * every time, whose hash V8 keeps, as are the strings of its parameters (Level).
   */
  readonly #statements = { get: new Map<string, Reads>(), all: new Map<string, Reads>() };
  /** How many values are kept, over all statements. */
  #size = 0;
  /** By table, the statements that read it. */
  readonly #readers = new Map<string, Reads[]>();
  /** Statements whose tables are not known: emptied by every write. */
  #readsAny: Reads[] = [];
  #external = Number.NaN;
  readonly #written = new Map<string, Tables>();
  #schema: Schema | undefined;

  constructor(db: Database.Database, max: number) {
    this.#db = db;
    this.#max = max;
  }

  /**
   * The value of `read` (statement `sql`, run by `kind` with `params`), from memory while no table
   * `sql` reads has changed and `external` (another connection's commits: SQLite's data_version) is
   * the same.
   */
  get<T>(kind: "get" | "all", sql: string, params: readonly unknown[], external: number, read: () => T): T {
    if (external !== this.#external) {
      this.#external = external;
      this.changedAll();
      // Another connection's commit may have changed the schema too (rarely: a migration).
      if (this.#schema && this.#schema.version !== this.#schemaVersion()) this.#forgetSchema();
    }
    let reads = this.#statements[kind].get(sql);
    if (!reads) {
      // Statements built with values in their text would pile up: kept up to a bound.
      if (this.#statements[kind].size >= MAX_STATEMENTS) this.#forgetStatements();
      reads = this.#statement(sql);
      this.#statements[kind].set(sql, reads);
    }
    const entry = find(reads.entries, params);
    if (entry) return entry.value as T;
    const value = read();
    if (this.#size >= this.#max) this.#clear();
    this.#size++;
    reads.count++;
    keep(reads.entries, params, { value });
    return value;
  }

  /** A read statement newly seen, listed under each table it reads. */
  #statement(sql: string): Reads {
    const reads: Reads = { entries: new Map(), count: 0 };
    const tables = this.#readTables(sql);
    if (!tables) this.#readsAny.push(reads);
    for (const table of tables ?? []) {
      const list = this.#readers.get(table);
      if (list) list.push(reads);
      else this.#readers.set(table, [reads]);
    }
    return reads;
  }

  #empty(reads: Reads): void {
    this.#size -= reads.count;
    forget(reads);
  }

  /** Write statement `sql` ran (or is about to): the tables it may change are changed. */
  wrote(sql: string): void {
    let tables = this.#written.get(sql);
    if (tables === undefined) {
      tables = this.#writeTables(sql);
      if (this.#written.size >= this.#max) this.#written.clear();
      this.#written.set(sql, tables);
    }
    if (!tables) return this.changedAll();
    for (const table of tables) for (const reads of this.#readers.get(table) ?? []) this.#empty(reads);
    for (const reads of this.#readsAny) this.#empty(reads);
  }

  /** Anything may have changed (a rollback, DDL, a statement not understood): nothing is kept. */
  changedAll(): void {
    this.#clear();
  }

  /** Forgets every value (a statement's tables stay known). */
  #clear(): void {
    for (const reads of this.#statements.get.values()) forget(reads);
    for (const reads of this.#statements.all.values()) forget(reads);
    this.#size = 0;
  }

  /**
   * The table a write changes and those its foreign keys' actions change with it (a delete's, an
   * update's); null: not known.
   */
  #writeTables(sql: string): Tables {
    const verb = WRITE.exec(sql);
    const name = verb && NAME.exec(sql.slice(verb[0].length));
    if (!name) {
      // DDL (or something else this does not parse): the schema may have changed too.
      this.#forgetSchema();
      return null;
    }
    const table = name[2]!.toLowerCase();
    const schema = this.#schemaKnowing([table]);
    if (!schema.tables.has(table) || schema.triggered.has(table)) return null;
    // Whether it may delete rows of `table` (a REPLACE among them), or update them (an upsert).
    const deletes = /^\s*DELETE|REPLACE/i.test(verb[0]) || schema.replacing.has(table);
    const updates = /^\s*UPDATE/i.test(verb[0]) || /\bDO\s+UPDATE\b/i.test(sql);
    const reached = new Set([table]);
    const { actions } = schema;
    for (const t of reached) {
      if (schema.triggered.has(t)) return null;
      // What an action does to a child's row (a delete, or an update) is not told apart: both follow.
      const first = t === table;
      if (deletes || !first) for (const child of actions.delete.get(t) ?? []) reached.add(child);
      if (updates || !first) for (const child of actions.update.get(t) ?? []) reached.add(child);
    }
    return [...reached];
  }

  /** The tables a read depends on: every table its text names, and the tables of the views it names. */
  #readTables(sql: string): Tables {
    const sources = [...sql.matchAll(SOURCE)].map((m) => m[2]!.toLowerCase());
    const schema = this.#schemaKnowing(sources);
    const tables = sources.every((s) => knows(schema, s)) ? namedTables(schema, sql) : null;
    return tables;
  }

  /** The schema, read again if it does not know one of `names` (a table created since). */
  #schemaKnowing(names: readonly string[]): Schema {
    const known = this.#schema;
    if (known && names.every((n) => knows(known, n))) return known;
    const version = this.#schemaVersion();
    // Not a table (a common table expression's name, a temporary table): the schema is the same.
    if (known && known.version === version) return known;
    if (known) this.#forgetSchema();
    this.#schema = this.#loadSchema(version);
    return this.#schema;
  }

  #schemaVersion(): number {
    return this.#db.pragma("schema_version", { simple: true }) as number;
  }

  /** The schema changed: what was parsed from statements against it is parsed again. */
  #forgetSchema(): void {
    this.#schema = undefined;
    this.#written.clear();
    this.#forgetStatements();
    this.changedAll();
  }

  #forgetStatements(): void {
    this.#clear();
    this.#statements.get.clear();
    this.#statements.all.clear();
    this.#readers.clear();
    this.#readsAny = [];
  }

  #loadSchema(version: number): Schema {
    const objects = this.#db
      .prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('table', 'view', 'trigger')",
      )
      .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
    const tables = new Set(objects.filter((o) => o.type === "table").map((o) => o.name.toLowerCase()));
    const views = new Map<string, Tables>();
    for (const o of objects.filter((v) => v.type === "view")) {
      const words = new Set((o.sql ?? "").match(WORD)?.map((w) => w.toLowerCase()));
      // A view over a view is not followed: reads of it depend on every table.
      const named = [...words].filter((w) => tables.has(w));
      const overViews = objects.some((v) => v.type === "view" && v !== o && words.has(v.name.toLowerCase()));
      views.set(o.name.toLowerCase(), overViews ? null : named);
    }
    const triggered = new Set(
      objects.filter((o) => o.type === "trigger").map((o) => o.tbl_name.toLowerCase()),
    );
    const replacing = new Set(
      objects
        .filter((o) => o.type === "table" && /\bREPLACE\b/i.test(o.sql ?? ""))
        .map((o) => o.name.toLowerCase()),
    );
    const keys = this.#db
      .prepare(
        `SELECT m.name AS child, f."table" AS parent, f.on_delete, f.on_update
         FROM sqlite_schema m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`,
      )
      .all() as { child: string; parent: string; on_delete: string; on_update: string }[];
    const actions = { delete: new Map<string, string[]>(), update: new Map<string, string[]>() };
    const follow = (on: Map<string, string[]>, action: string, parent: string, child: string) => {
      if (action === "NO ACTION" || action === "RESTRICT") return;
      on.set(parent.toLowerCase(), [...(on.get(parent.toLowerCase()) ?? []), child.toLowerCase()]);
    };
    for (const k of keys) {
      follow(actions.delete, k.on_delete, k.parent, k.child);
      follow(actions.update, k.on_update, k.parent, k.child);
    }
    return { version, tables, views, triggered, actions, replacing };
  }
}

const knows = (schema: Schema, name: string): boolean => schema.tables.has(name) || schema.views.has(name);

/** The tables `sql` names, directly or through a view; null when it names none or a view not followed. */
function namedTables(schema: Schema, sql: string): Tables {
  const found = new Set<string>();
  for (const word of sql.match(WORD) ?? []) {
    const name = word.toLowerCase();
    if (schema.tables.has(name)) found.add(name);
    else if (schema.views.has(name)) {
      const read = schema.views.get(name)!;
      if (!read) return null;
      for (const t of read) found.add(t);
    }
  }
  return found.size > 0 ? [...found] : null;
}

function forget(reads: Reads): void {
  reads.entries.clear();
  reads.count = 0;
}

function allStrings(params: readonly unknown[]): boolean {
  for (let i = 0; i < params.length; i++) if (typeof params[i] !== "string") return false;
  return true;
}

/** The value kept for `params`, if any (see Level). */
function find(entries: Level, params: readonly unknown[]): Kept | undefined {
  if (!allStrings(params)) return entries.get(JSON.stringify(params)) as Kept | undefined;
  let node = entries.get(params.length);
  for (let i = 0; node !== undefined && i < params.length; i++) node = (node as Level).get(params[i]);
  return node as Kept | undefined;
}

/** Keeps `kept` for `params` (see Level). */
function keep(entries: Level, params: readonly unknown[], kept: Kept): void {
  if (!allStrings(params)) {
    entries.set(JSON.stringify(params), kept);
    return;
  }
  const last = params.length - 1;
  if (last < 0) {
    entries.set(0, kept);
    return;
  }
  let level = entries.get(params.length) as Level | undefined;
  if (level === undefined) entries.set(params.length, (level = new Map()));
  for (let i = 0; i < last; i++) {
    let next = level.get(params[i]) as Level | undefined;
    if (next === undefined) level.set(params[i], (next = new Map()));
    level = next;
  }
  level.set(params[last], kept);
}
