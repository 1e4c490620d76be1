// Shared helpers of the naive reference scripts (Node.js). These are NOT the reference SDK:
// the reference JavaScript SDK is not published to the npm registry this project can reach,
// so these scripts do the same job the way the reference SDK does it (see README.md here):
// node:fs synchronous calls, JSON.parse, a recursively sorted copy + JSON.stringify as the
// canonical form, node:crypto per call, an in-memory pin map written once with writeFileSync.
import { createHash, createPublicKey } from "node:crypto";

/** Sorted-keys deep copy, as the reference SDKs canonicalize before JSON.stringify. */
export function sortDeep(value) {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const k of Object.keys(value).sort()) out[k] = sortDeep(value[k]);
    return out;
  }
  return value;
}

/** The canonical string of a schema: sorted copy, compact JSON. */
export function canonicalize(schema) {
  return JSON.stringify(sortDeep(schema));
}

/** SHA-256 of a string or bytes, as a Buffer. */
export function sha256(data) {
  return createHash("sha256").update(data).digest();
}

/** Loads a PEM public key and its `sha256:` fingerprint (SHA-256 of the DER SPKI). */
export function loadPublicKey(pem) {
  const key = createPublicKey(pem);
  const der = key.export({ type: "spki", format: "der" });
  return { key, fingerprint: "sha256:" + sha256(der).toString("hex") };
}

/** Wall-clock milliseconds since `start` (process.hrtime.bigint()). */
export function since(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
