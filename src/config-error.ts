/**
 * A setting the service cannot start with: its message is one line naming the variable (never its value).
 * Thrown by src/config.ts and by the rules that judge a setting (the signing keys, their protection, tracing);
 * a module of its own so that those rules need nothing of the configuration's loading.
 */
export class ConfigError extends Error {}
