/** This package's name and version, as its package.json states them (a test keeps them equal). */
export const CLIENT_NAME = '@slowdns/activation-client';
export const CLIENT_VERSION = '0.1.0';
