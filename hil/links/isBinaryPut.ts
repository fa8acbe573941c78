const decoder = new TextDecoder();

/**
 * True for a `card.binary.put` request line: after the module accepts one, the next line on
 * that link is binary data, not JSON (cheap substring test first: most lines are not).
 */
export function isBinaryPut(line: Uint8Array): boolean {
  const text = decoder.decode(line);
  if (!text.includes("card.binary.put")) return false;
  try {
    return (JSON.parse(text) as { req?: unknown }).req === "card.binary.put";
  } catch {
    return false;
  }
}
