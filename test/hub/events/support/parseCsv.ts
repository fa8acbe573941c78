/**
 * A strict RFC 4180 reader for the tests (the hub writes CSV through csv-stringify; reading it
 * back here with independent code checks what a spreadsheet would see): quoted fields may hold
 * commas, doubled quotes and line breaks; records end with LF or CRLF.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  let atFieldStart = true;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
        if (i < text.length && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") {
          throw new Error(`text after a closing quote at ${i}`);
        }
      } else {
        field += c;
        i++;
      }
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
      i++;
    } else if (c === '"') {
      throw new Error(`a quote inside an unquoted field at ${i}`);
    } else if (c === ",") {
      row.push(field);
      field = "";
      atFieldStart = true;
      i++;
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      atFieldStart = true;
      i += c === "\r" ? 2 : 1;
    } else {
      field += c;
      atFieldStart = false;
      i++;
    }
  }
  if (quoted) throw new Error("an unterminated quoted field");
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
