import type { RequestTable } from "./RequestTable.js";

/** `echo`: hosts probe the link with it (note-c's NotePing compares `text`). */
export const echoRequests: RequestTable = {
  echo: ({ args }) => {
    const text = args.string("text");
    return text === undefined ? {} : { text };
  },
};
