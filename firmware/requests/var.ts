import {
  deleteNoteNotFound,
  noteNotFound,
  noVariableName,
  varNeedsDatabase,
  varNeedsValue,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import { prepareNoteContent } from "../storage/noteContent.js";
import { checkNoteId, checkNotefileName } from "../storage/notefileNames.js";
import { deleteNote, storeNote } from "../storage/noteOps.js";
import type { Args } from "./Args.js";
import type { RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

/** Where variables live unless a request names another database notefile. */
export const DEFAULT_VARS_FILE = "vars.db";

/** The variable a request names and the database notefile it lives in. */
function target(args: Args): { name: string; fileName: string } {
  const name = args.string("name");
  if (!name) throw noVariableName();
  checkNoteId(name);
  const fileName = args.string("file") || DEFAULT_VARS_FILE;
  if (checkNotefileName(fileName).queue) throw varNeedsDatabase(fileName);
  return { name, fileName };
}

function liveNote(module: ModuleContext, fileName: string, name: string) {
  const file = module.notebox.file(fileName);
  const note = file?.notes.get(name);
  return file && note && !note.deleted ? { file, note } : undefined;
}

/**
 * `var.*`: named values kept as database notes (the name is the note ID, the value the body's
 * `text`, `value` or `flag`), in `vars.db` or the given `.db`/`.dbs`/`.dbx` notefile.
 */
export const varRequests: RequestTable = {
  "var.set": ({ args, module }) => {
    const { name, fileName } = target(args);
    const text = args.string("text");
    const value = args.number("value");
    const flag = args.optionalBool("flag");
    if (text === undefined && value === undefined && flag === undefined) throw varNeedsValue();
    const body: JsonObject = {};
    if (text !== undefined) body["text"] = text;
    if (value !== undefined) body["value"] = value;
    if (flag !== undefined) body["flag"] = flag;
    const notebox = module.notebox;
    const content = prepareNoteContent(
      notebox.file(fileName),
      { body, payload: undefined, full: false },
      module.noteTime(),
      module.log,
    );
    storeNote(notebox, notebox.ensureFile(fileName), name, content);
    if (args.bool("sync")) notebox.requestSync(fileName);
    return {};
  },

  "var.get": ({ args, module }) => {
    const { name, fileName } = target(args);
    const found = liveNote(module, fileName, name);
    if (!found) throw noteNotFound(name);
    const body = found.note.body ?? {};
    const reply: JsonObject = {};
    if (typeof body["text"] === "string") reply["text"] = body["text"];
    if (typeof body["value"] === "number") reply["value"] = body["value"];
    if (typeof body["flag"] === "boolean") reply["flag"] = body["flag"];
    return reply;
  },

  "var.delete": ({ args, module }) => {
    const { name, fileName } = target(args);
    const found = liveNote(module, fileName, name);
    if (!found) throw deleteNoteNotFound(name);
    deleteNote(module.notebox, found.file, found.note);
    return {};
  },
};
