// PGlite has no socket: every call into the engine passes the frontend messages it runs
// (execProtocolRawSync), so the same reader counts them; a call is PGlite's "round trip".
import { PGlite } from '@electric-sql/pglite';
import { CostRecorder, FrontendReader } from './wire-capture.js';

type RawSync = (this: PGlite, message: Uint8Array) => Uint8Array;

/** Counts the protocol calls of every PGlite instance in this process until `stop()`. */
export function capturePglite(): { recorder: CostRecorder; stop(): void } {
  const recorder = new CostRecorder();
  const reader = new FrontendReader(recorder, false, false);
  const prototype = PGlite.prototype as unknown as { execProtocolRawSync: RawSync };
  const original = prototype.execProtocolRawSync;
  prototype.execProtocolRawSync = function (message) {
    recorder.roundTrip();
    reader.push(message);
    return original.call(this, message);
  };
  return { recorder, stop: () => void (prototype.execProtocolRawSync = original) };
}
