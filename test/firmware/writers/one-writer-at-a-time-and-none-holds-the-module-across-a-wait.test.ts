import { describe, expect, it } from "vitest";
import { WriterQueue } from "../../../firmware/WriterQueue.js";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("the module's writers take turns", () => {
  it("in arrival order, each alone until it releases", async () => {
    const queue = new WriterQueue();
    const log: string[] = [];
    const task = (name: string) =>
      queue.run(async () => {
        log.push(`${name} in`);
        await Promise.resolve();
        await Promise.resolve();
        log.push(`${name} out`);
      });
    await Promise.all([task("a"), task("b"), task("c")]);
    expect(log).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
  });

  it("a failing writer gives the turn to the next", async () => {
    const queue = new WriterQueue();
    const failed = queue.run(async () => {
      throw new Error("boom");
    });
    await expect(failed).rejects.toThrow("boom");
    await expect(queue.run(async () => "next")).resolves.toBe("next");
  });

  it("requests and background tasks never run inside each other", async () => {
    const t = await bootTestModule();
    const order: string[] = [];
    const background = t.module.exclusive(async () => {
      order.push("task start");
      t.module.notebox.appendToQueue("_health.qo", { body: { n: 1 }, time: 0 });
      await Promise.resolve();
      order.push("task end");
    });
    const request = t.req({ req: "note.add", file: "a.qo", body: { n: 2 } }).then((r) => {
      order.push("request done");
      return r;
    });
    await Promise.all([background, request]);
    expect(order).toEqual(["task start", "task end", "request done"]);
    expect((await request).total).toBe(1);
  });
});

describe("a writer waiting on I/O", () => {
  it("commits before the wait, lets others write during it, and continues after it", async () => {
    const t = await bootTestModule();
    let answer!: (value: string) => void;
    const network = new Promise<string>((resolve) => (answer = resolve));
    const waiting = t.module.exclusive(async () => {
      t.module.notebox.appendToQueue("sync.qo", { body: { step: "before" }, time: 0 });
      const reply = await t.module.awaitIo(() => network);
      t.module.notebox.appendToQueue("sync.qo", { body: { step: "after", reply }, time: 0 });
    });
    // During the wait a request runs, and sees what the waiting writer committed before it.
    const during = await t.req({ req: "note.add", file: "other.qo", body: { n: 1 } });
    expect(during).toEqual({ total: 1 });
    const seenDuringWait = t.module.notebox.file("sync.qo")?.notes.size;
    answer("pong");
    await waiting;
    expect(seenDuringWait).toBe(1);
    expect([...t.module.notebox.file("sync.qo")!.notes.values()].map((n) => n.body)).toEqual([
      { step: "before" },
      { step: "after", reply: "pong" },
    ]);
    // Both halves are durable: a reboot keeps them.
    const again = await t.reboot();
    expect(again.module.notebox.file("sync.qo")?.notes.size).toBe(2);
  });

  it("a failure after the wait rolls back only what came after it", async () => {
    const t = await bootTestModule();
    const failing = t.module.exclusive(async () => {
      t.module.notebox.appendToQueue("sync.qo", { body: { step: "before" }, time: 0 });
      await t.module.awaitIo(async () => "reply");
      t.module.notebox.appendToQueue("sync.qo", { body: { step: "after" }, time: 0 });
      throw new Error("the hub refused");
    });
    await expect(failing).rejects.toThrow("the hub refused");
    expect([...t.module.notebox.file("sync.qo")!.notes.values()].map((n) => n.body)).toEqual([
      { step: "before" },
    ]);
  });

  it("only a writer holding its turn may wait", async () => {
    const t = await bootTestModule();
    await expect(t.module.awaitIo(async () => 1)).rejects.toThrow(/holding its turn/);
  });
});
