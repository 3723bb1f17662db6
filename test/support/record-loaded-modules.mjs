// `node --import ./test/support/record-loaded-modules.mjs …`: the URL of every ES module the process
// loads (the bundle's chunks among them) is written to $LOADED_MODULES_FILE, one a line, when it exits.
// The loader's hooks run on a thread of their own and post each URL back here.
import { writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (url) => loaded.push(url));
port1.unref();
register('./record-loaded-modules-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => writeFileSync(process.env.LOADED_MODULES_FILE, loaded.join('\n')));
