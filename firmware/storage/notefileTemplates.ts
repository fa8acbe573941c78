import type { NotefileMeta } from "./Note.js";
import type { Notefile } from "./Notefile.js";
import { Template, type TemplateDefinition } from "./Template.js";

/**
 * Where a notefile keeps its templates: in its metadata record, numbered from 1. The current
 * template applies to notes added from now on; older ones stay while notes encoded with them
 * remain, so re-templating never makes a stored note unreadable.
 */
interface TemplateMeta {
  templates?: Record<string, TemplateDefinition>;
  template?: number;
}

/**
 * What template changes need of the Notebox (a seam, so that the Notebox's codec can read
 * templates without this file depending on the Notebox).
 */
export interface TemplateMetaWriter {
  files(): Iterable<Notefile>;
  setFileMeta(file: Notefile, meta: Omit<NotefileMeta, "ctr">): void;
}

const compiled = new WeakMap<TemplateDefinition, Template>();

function metaOf(file: Notefile): TemplateMeta {
  return file.meta as TemplateMeta;
}

/** The compiled form of a stored definition (compiled once, then cached). */
export function compileTemplate(definition: TemplateDefinition): Template {
  let template = compiled.get(definition);
  if (!template) compiled.set(definition, (template = Template.compile(definition)));
  return template;
}

/** The template a note numbered `n` was encoded with. */
export function templateNumbered(file: Notefile, n: number): Template | undefined {
  const definition = metaOf(file).templates?.[String(n)];
  return definition ? compileTemplate(definition) : undefined;
}

/** The template notes added now are fitted to, with its number. */
export function currentTemplate(
  file: Notefile | undefined,
): { number: number; template: Template } | undefined {
  if (!file) return undefined;
  const n = metaOf(file).template;
  if (n === undefined) return undefined;
  const template = templateNumbered(file, n);
  return template ? { number: n, template } : undefined;
}

/**
 * Makes `definition` the file's template. Setting the same template again (hosts do it at every
 * boot) keeps the current number; anything else creates a new one. Returns the number in use.
 */
export function setTemplate(
  notebox: TemplateMetaWriter,
  file: Notefile,
  definition: TemplateDefinition,
): number {
  const meta = metaOf(file);
  const current = meta.template;
  if (current !== undefined && sameDefinition(meta.templates?.[String(current)], definition)) return current;
  const numbers = Object.keys(meta.templates ?? {}).map(Number);
  const next = Math.max(0, ...numbers) + 1;
  const templates = { ...referencedTemplates(file, meta), [String(next)]: definition };
  writeMeta(notebox, file, templates, next);
  return next;
}

/** Removes the file's template; notes already stored keep theirs. */
export function clearTemplate(notebox: TemplateMetaWriter, file: Notefile): void {
  const meta = metaOf(file);
  if (meta.template === undefined && meta.templates === undefined) return;
  const templates = referencedTemplates(file, { ...meta, template: undefined });
  writeMeta(notebox, file, Object.keys(templates).length > 0 ? templates : undefined, undefined);
}

/** The notefile (other than `except`) whose current template uses LoRa/NTN `port`. */
export function portOwner(notebox: TemplateMetaWriter, port: number, except: string): string | undefined {
  for (const file of notebox.files()) {
    if (file.name !== except && currentTemplate(file)?.template.definition.port === port) return file.name;
  }
  return undefined;
}

/** Drops stored templates no note refers to any more (the current one is kept). */
function referencedTemplates(file: Notefile, meta: TemplateMeta): Record<string, TemplateDefinition> {
  const all = meta.templates ?? {};
  const used = new Set<number>();
  if (meta.template !== undefined) used.add(meta.template);
  for (const note of file.notes.values()) if (note.template !== undefined) used.add(note.template);
  const kept: Record<string, TemplateDefinition> = {};
  for (const [n, definition] of Object.entries(all)) if (used.has(Number(n))) kept[n] = definition;
  return kept;
}

function writeMeta(
  notebox: TemplateMetaWriter,
  file: Notefile,
  templates: Record<string, TemplateDefinition> | undefined,
  template: number | undefined,
): void {
  const { ctr: _ctr, templates: _t, template: _n, ...rest } = file.meta;
  const meta: Record<string, unknown> = { ...rest };
  if (templates) meta["templates"] = templates;
  if (template !== undefined) meta["template"] = template;
  notebox.setFileMeta(file, meta);
}

function sameDefinition(a: TemplateDefinition | undefined, b: TemplateDefinition): boolean {
  // Field order is part of a template (it is the record layout), so plain JSON text compares.
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
