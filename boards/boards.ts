import type { BoardDefinition } from "./BoardDefinition.js";
import { pi3 } from "./pi3.js";
import { pi4 } from "./pi4.js";
import { pi5 } from "./pi5.js";
import { virtual } from "./virtual.js";
import { zero2w } from "./zero2w.js";

/** Every board cardsim knows, by name. */
export const boards: Readonly<Record<string, BoardDefinition>> = { pi3, pi4, pi5, zero2w, virtual };

export function boardNamed(name: string): BoardDefinition | undefined {
  return boards[name];
}
