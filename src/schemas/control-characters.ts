/**
 * Operator text (a filter, a reason, an override's target) holds no control character: NUL (which
 * PostgreSQL cannot store: a query holding one failed with 22021), the rest of C0 (tab and newlines
 * included), DEL and C1. One pattern for every admin input, so that each refuses the same with 400
 * `validation_failed`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose
export const WITHOUT_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

export const CONTROL_CHARACTERS_MESSAGE = 'must not contain control characters (NUL, tab, newline, DEL, …)';
