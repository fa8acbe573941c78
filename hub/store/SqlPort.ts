/**
 * The three calls both backends' connections offer to the statements they share
 * (`AutomationSql.ts`, `IntegrationSqlStore.ts`): `?` placeholders, awaited the same way on both
 * (SQLite answers at once, PostgreSQL later); `run` resolves with the number of rows changed.
 * SQLite's synchronous calls are wrapped in `sqlitePort` (SqliteHubStore.ts).
 */
export interface SqlPort {
  get<T>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  run(sql: string, ...params: unknown[]): Promise<number>;
}
