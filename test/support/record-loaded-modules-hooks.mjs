// The hooks of record-loaded-modules.mjs: each module's URL, as it is loaded.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
