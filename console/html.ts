import htm from "htm";
import { h } from "preact";

/**
 * The console's markup: htm's tagged templates over Preact's `h`. Every `${value}` in a text or
 * an attribute is set as text or as a property, never parsed as HTML, so whatever a device or a
 * user wrote is shown, never run.
 */
export const html = htm.bind(h);
