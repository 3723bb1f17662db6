/**
 * API prose written as readable source: a tagged template whose text may be wrapped over several lines.
 * Inside a paragraph a line break (and the next line's indentation) reads as one space; a blank line
 * ends the paragraph (`\n\n`); a line that starts a list item (`- `, `* `, `1. `) or a table row (`|`)
 * keeps its line break. Interpolated values are inserted as they are. The text is made once, at module
 * load, and is exactly what a single-line string would have said: the OpenAPI document does not change.
 */
export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  let text = '';
  strings.forEach((chunk, i) => {
    text += unwrap(chunk);
    if (i < values.length) text += String(values[i]);
  });
  return text;
}

function unwrap(chunk: string): string {
  return chunk.replace(/\n[ \t]*(?:\n[ \t]*)*/g, (breaks: string, offset: number) => {
    if (/\n[ \t]*\n/.test(breaks)) return '\n\n';
    // At either edge of an interpolation, or before a list item or a table row: the line break stays.
    const rest = chunk.slice(offset + breaks.length);
    if (offset === 0 || rest === '' || /^(?:[-*] |\| |\d+\. )/.test(rest)) return '\n';
    return ' ';
  });
}
