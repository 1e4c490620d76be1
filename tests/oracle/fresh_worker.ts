/**
 * Worker for {@linkcode evaluateFresh}: evaluates one input in a fresh isolate and posts
 * back the mismatch category or null (`compare`), or the runtime `JSON.parse` reading
 * (`runtime`).
 *
 * @module
 */
import { evaluate, runtimeJsonParseJcs } from "./differential.ts";

interface Request {
  bytes: Uint8Array;
  mode: "compare" | "runtime";
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<Request>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = ({ data: { bytes, mode } }) =>
  scope.postMessage(mode === "runtime" ? runtimeJsonParseJcs(bytes) : evaluate(bytes).category);
