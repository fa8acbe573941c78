import type { FastifyInstance } from "fastify";
import * as errors from "../errors.js";
import type { DescriptionRecord } from "../store/records.js";
import type { HubRouter } from "./HubRouter.js";
import { isoTime } from "./views.js";
import type { JsonObject } from "../../core/json.js";

/** Description content limit (spec Limits: up to 10 MB). */
export const MAX_DESCRIPTION_BYTES = 10 * 1024 * 1024;
const MAX_NAME = 256;

function descriptionView(d: DescriptionRecord): JsonObject {
  return {
    name: d.name,
    content_type: d.contentType,
    size: d.size,
    created: isoTime(d.created),
    modified: isoTime(d.modified),
  };
}

/** The stored Content-Type when the writer gave none: JSON, else UTF-8 text, else bytes. */
function detectContentType(content: Buffer): string {
  const text = new TextDecoder("utf-8", { fatal: true });
  let decoded: string;
  try {
    decoded = text.decode(content);
  } catch {
    return "application/octet-stream";
  }
  try {
    JSON.parse(decoded);
    return "application/json";
  } catch {
    return "text/plain; charset=utf-8";
  }
}

function checkName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (name === "" || name.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw errors.descriptionNameInvalid();
  }
}

/** Global descriptions: raw content blobs with their Content-Type; staff write, everyone reads. */
export function registerDescriptionRoutes(router: HubRouter): void {
  const { store } = router.services;

  router.account("GET", "/v1/description", async () => ({
    descriptions: (await store.descriptions.list()).map(descriptionView),
  }));

  router.account("GET", "/v1/description/:descriptionName", async (ctx) => {
    const name = ctx.params.descriptionName!;
    checkName(name);
    const found = await store.descriptions.get(name);
    if (!found) throw errors.descriptionNotFound(name);
    ctx.reply.header("Content-Type", found.record.contentType);
    return Buffer.from(found.content.buffer, found.content.byteOffset, found.content.byteLength);
  });

  router.staff("DELETE", "/v1/description/:descriptionName", async (ctx) => {
    const name = ctx.params.descriptionName!;
    checkName(name);
    if (!(await store.descriptions.delete(name))) throw errors.descriptionNotFound(name);
    ctx.reply.code(204);
    return undefined;
  });

  // Any content type is stored as given, so this route reads its body raw.
  router.app.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: MAX_DESCRIPTION_BYTES },
      (_req, body, done) => done(null, body),
    );
    router.within(scope).staff(
      "POST",
      "/v1/description/:descriptionName",
      async (ctx) => {
        const name = ctx.params.descriptionName!;
        checkName(name);
        const content = Buffer.isBuffer(ctx.request.body) ? ctx.request.body : Buffer.alloc(0);
        if (content.length === 0) throw errors.descriptionEmpty();
        const declared = ctx.request.headers["content-type"];
        const contentType =
          typeof declared === "string" && declared.trim() !== ""
            ? declared.trim()
            : detectContentType(content);
        const existing = await store.descriptions.get(name);
        const record = await store.descriptions.put(
          {
            name,
            contentType,
            size: content.length,
            created: existing?.record.created ?? ctx.now,
            modified: ctx.now,
            createdBy: existing?.record.createdBy ?? ctx.principal.userUid,
          },
          new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
        );
        return descriptionView(record);
      },
      { bodyLimit: MAX_DESCRIPTION_BYTES },
    );
  });
}
