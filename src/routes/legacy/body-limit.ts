import { bodySizeLimit } from '../../http/body-guards.js';

/** Agent bodies are small; a tighter limit than the app's 64 KiB keeps a broken agent from filling rows. */
const LEGACY_MAX_BODY_BYTES = 8 * 1024;

/** Route middleware, before anything reads the body. */
export const legacyBodyLimit = bodySizeLimit(LEGACY_MAX_BODY_BYTES);
