import type { DescriptionStore } from "../HubStore.js";
import type { DescriptionRecord } from "../records.js";
import type { SqliteConnection } from "./SqliteConnection.js";

export interface DescriptionRow {
  name: string;
  content_type: string;
  size: number;
  created: number;
  modified: number;
  created_by: string;
}

export const record = (r: DescriptionRow): DescriptionRecord => ({
  name: r.name,
  contentType: r.content_type,
  size: r.size,
  created: r.created,
  modified: r.modified,
  createdBy: r.created_by,
});

export const COLUMNS = "name, content_type, size, created, modified, created_by";

export class SqliteDescriptionStore implements DescriptionStore {
  constructor(private readonly sql: SqliteConnection) {}

  async put(d: DescriptionRecord, content: Uint8Array): Promise<DescriptionRecord> {
    // A replacement keeps the original creation time and author.
    this.sql.run(
      `INSERT INTO descriptions (name, content_type, content, size, created, modified, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET content_type = excluded.content_type, content = excluded.content,
        size = excluded.size, modified = excluded.modified`,
      d.name,
      d.contentType,
      content,
      content.length,
      d.created,
      d.modified,
      d.createdBy,
    );
    return record(
      this.sql.get<DescriptionRow>(`SELECT ${COLUMNS} FROM descriptions WHERE name = ?`, d.name)!,
    );
  }

  async get(name: string): Promise<{ record: DescriptionRecord; content: Uint8Array } | undefined> {
    const row = this.sql.get<DescriptionRow & { content: Uint8Array }>(
      `SELECT ${COLUMNS}, content FROM descriptions WHERE name = ?`,
      name,
    );
    return row && { record: record(row), content: row.content };
  }

  async list(): Promise<DescriptionRecord[]> {
    return this.sql.all<DescriptionRow>(`SELECT ${COLUMNS} FROM descriptions ORDER BY name`).map(record);
  }

  async delete(name: string): Promise<boolean> {
    return this.sql.run("DELETE FROM descriptions WHERE name = ?", name).changes > 0;
  }
}
