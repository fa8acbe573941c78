// A writer for the crash test: commits rows to a hub database checkpointed by a worker thread that
// copies the log every few pages, printing each row's number once it is committed ("n 12") and
// each checkpoint the worker made ("checkpoint") and each time the log started again from its
// beginning ("restart": its frame count, in the WAL index's header, fell), until it is killed.
// Run: node --import tsx checkpointedWriter.ts PATH
import { openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { SqliteConnection } from "../../../../hub/store/sqlite/SqliteConnection.js";

const path = process.argv[2]!;
const sql = new SqliteConnection(path, {
  checkpointer: {
    pages: 20,
    pollMs: 1,
    restartBytes: 1024 * 1024,
    onCheckpoint: () => console.log("checkpoint"),
  },
});
sql.db.exec("CREATE TABLE IF NOT EXISTS rows (n INTEGER PRIMARY KEY, data BLOB NOT NULL)");
let n = (sql.get<{ n: number | null }>("SELECT max(n) AS n FROM rows")?.n ?? 0) + 1;
const data = new Uint8Array(16 * 1024).fill(3);
const shm = openSync(`${path}-shm`, "r");
const header = Buffer.alloc(48);
const logFrames = () => {
  readSync(shm, header, 0, 48, 0);
  return endianness() === "LE" ? header.readUInt32LE(16) : header.readUInt32BE(16);
};
let frames = logFrames();
for (;;) {
  await sql.gate.transaction(async () => {
    sql.run("INSERT INTO rows (n, data) VALUES (?, ?)", n, data);
  });
  console.log(`n ${n++}`);
  if (logFrames() < frames) console.log("restart");
  frames = logFrames();
  // A turn of the event loop, so that the worker's messages arrive.
  await new Promise((resolve) => setImmediate(resolve));
}
