import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { JsonObject } from "../../core/json.js";
import {
  contentMd5Malformed,
  contentMd5Mismatch,
  firmwareBodyEmpty,
  firmwareTooLarge,
  firmwareTypeInvalid,
  hostFirmwareOnly,
} from "../dfu/dfuErrors.js";
import { crc32 } from "../../core/crc32.js";
import { infoString } from "../dfu/firmwareInfo.js";
import { MAX_FIRMWARE_BYTES, type FirmwareQuery } from "../dfu/FirmwareService.js";
import { FIRMWARE_TYPES, type FirmwareRecord, type FirmwareType } from "../store/FirmwareStore.js";
import type { HubRouter } from "./HubRouter.js";
import { UPDATE_FIRMWARE } from "./requestBodies.js";
import { isoTime } from "./views.js";

/** A path or query value naming a firmware type. */
export function firmwareType(value: string | undefined): FirmwareType {
  if (!(FIRMWARE_TYPES as readonly (string | undefined)[]).includes(value)) throw firmwareTypeInvalid();
  return value as FirmwareType;
}

/** FirmwareInfo: the record, what the image says of itself, and its digests. */
export function firmwareView(r: FirmwareRecord): JsonObject {
  const out: JsonObject = {
    filename: r.filename,
    source: r.source,
    type: r.type,
    version: r.version ?? undefined,
    notes: r.notes ?? undefined,
    info: r.info ?? undefined,
    md5: r.md5,
    crc32: r.crc32,
    length: r.length,
    created: isoTime(r.created),
    modified: isoTime(r.modified),
    built: infoString(r.image, "built"),
    description: infoString(r.image, "description"),
    organization: infoString(r.image, "org") ?? infoString(r.image, "organization"),
    product: infoString(r.image, "product"),
    builder: infoString(r.image, "builder"),
    target: r.target ?? undefined,
    published: r.published,
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

/**
 * Firmware images of a project: upload (the body is the image), list with filters and orders,
 * download, metadata changes and deletion of host images.
 */
export function registerFirmwareRoutes(router: HubRouter): void {
  const { firmware } = router.services;
  const P = "/v1/projects/:projectUID";
  const F = `${P}/firmware/:firmwareType/:filename`;

  router.project("GET", `${P}/firmware`, "viewer", async (ctx) => {
    const q = ctx.query;
    const type = q.string("firmwareType");
    const query: FirmwareQuery = {
      ...(type !== undefined ? { type: firmwareType(type) } : {}),
      ...optional("product", q.string("product")),
      ...optional("version", q.string("version")),
      ...optional("target", q.string("target")),
      ...optional("filename", q.string("filename")),
      ...optional("md5", q.string("md5")),
      unpublished: q.bool("unpublished", false),
      ...optional("sortBy", q.oneOf("sortBy", ["created", "name", "version", "length"] as const)),
      ...optional("sortOrder", q.oneOf("sortOrder", ["asc", "desc"] as const)),
    };
    return (await firmware.list(ctx.project.uid, query)).map(firmwareView);
  });

  router.project("GET", F, "viewer", async (ctx) => {
    const type = firmwareType(ctx.params.firmwareType);
    const { record, content } = await firmware.download(ctx.project.uid, type, ctx.params.filename!);
    ctx.reply
      .header("Content-Type", "application/octet-stream")
      .header("Content-Disposition", `attachment; filename="${record.filename.replace(/["\\]/g, "_")}"`);
    return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  });

  router.project("POST", F, "developer", async (ctx) => {
    const type = firmwareType(ctx.params.firmwareType);
    if (type !== "host") throw hostFirmwareOnly("updated");
    const { info, notes, version } = ctx.body(UPDATE_FIRMWARE);
    const record = await firmware.update(ctx.project.uid, type, ctx.params.filename!, {
      ...(info !== undefined ? { info } : {}),
      ...(notes !== undefined ? { notes } : {}),
      ...(version !== undefined ? { version } : {}),
    });
    return firmwareView(record);
  });

  router.project("DELETE", F, "developer", async (ctx) => {
    const type = firmwareType(ctx.params.firmwareType);
    if (type !== "host") throw hostFirmwareOnly("deleted");
    await firmware.delete(ctx.project.uid, type, ctx.params.filename!);
    ctx.reply.code(204);
    return undefined;
  });

  // The body is the image itself, whatever Content-Type the client gave it. Its digests are taken
  // chunk by chunk as it arrives (no second pass over the whole image).
  router.app.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => {
      const md5 = createHash("md5");
      const chunks: Buffer[] = [];
      let crc = 0;
      let size = 0;
      let failed = false;
      payload.on("data", (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (size > MAX_FIRMWARE_BYTES) {
          failed = true;
          payload.resume();
          return done(firmwareTooLarge(MAX_FIRMWARE_BYTES), undefined);
        }
        md5.update(chunk);
        crc = crc32(chunk, crc);
        chunks.push(chunk);
      });
      payload.on("error", (error) => {
        if (!failed) done(error, undefined);
        failed = true;
      });
      payload.on("end", () => {
        if (failed) return;
        const body: UploadBody = { content: Buffer.concat(chunks, size), md5: md5.digest("hex"), crc32: crc };
        done(null, body);
      });
    });
    router.within(scope).project("PUT", F, "developer", async (ctx) => {
      const type = firmwareType(ctx.params.firmwareType);
      const body = ctx.request.body as UploadBody | undefined;
      if (!body || body.content.length === 0) throw firmwareBodyEmpty();
      const claimed = contentMd5(ctx.request.headers["content-md5"]);
      if (claimed !== undefined && claimed !== body.md5) throw contentMd5Mismatch(claimed, body.md5);
      const version = ctx.query.string("version");
      const notes = ctx.query.string("notes");
      const { content } = body;
      const record = await firmware.upload(ctx.project.uid, type, {
        source: ctx.params.filename!,
        content: new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
        digests: { md5: body.md5, crc32: body.crc32 },
        ...(version !== undefined ? { version } : {}),
        ...(notes !== undefined ? { notes } : {}),
        createdBy: ctx.principal.kind === "user" ? ctx.principal.userUid : null,
      });
      return firmwareView(record);
    });
  });
}

/**
 * The MD5 a `Content-MD5` header claims, as 32 lowercase hex digits; undefined without one. The
 * header is RFC 1864's base64 of the 16-byte digest; 32 hex digits (what `md5sum` prints) are taken
 * too. Anything else is refused (a repeated header arrives joined, so it is refused as well).
 */
export function contentMd5(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(",") : header.trim();
  if (/^[0-9a-fA-F]{32}$/.test(text)) return text.toLowerCase();
  if (/^[A-Za-z0-9+/]{22}==$/.test(text)) {
    const digest = Buffer.from(text, "base64");
    if (digest.length === 16 && digest.toString("base64") === text) return digest.toString("hex");
  }
  throw contentMd5Malformed();
}

/** An upload's body as its parser hands it over: the bytes and their digests. */
interface UploadBody {
  readonly content: Buffer;
  readonly md5: string;
  readonly crc32: number;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
