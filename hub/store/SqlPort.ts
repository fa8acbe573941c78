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
  /**
   * `get` and `all` that the connection may answer from memory until a table the statement names
   * changes (SQLite: `SqliteConnection.cachedGet`); the rows must not be mutated. Where absent,
   * `get` and `all` (`reread`).
   */
  cachedGet?<T>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  cachedAll?<T>(sql: string, ...params: unknown[]): Promise<readonly T[]>;
}

/** The reads of configuration every session makes: from memory where the port keeps them. */
export const reread = {
  get: <T>(port: SqlPort, sql: string, ...params: unknown[]): Promise<T | undefined> =>
    port.cachedGet ? port.cachedGet<T>(sql, ...params) : port.get<T>(sql, ...params),
  all: <T>(port: SqlPort, sql: string, ...params: unknown[]): Promise<readonly T[]> =>
    port.cachedAll ? port.cachedAll<T>(sql, ...params) : port.all<T>(sql, ...params),
};
