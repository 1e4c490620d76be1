/**
 * What the batch tests share: the discovery document of a test key, and the arguments of a
 * `verify-schema --batch` run (tests/cli/batch_scale_test.ts, tests/schema/batch_threads_test.ts).
 */
import type { PrivateKey } from "../../lib/crypto/keys.ts";

/** Writes a 1.4 discovery document for `key` at `path` (no revoked keys); returns `path`. */
export function writeDiscovery(path: string, key: PrivateKey, developerName: string): string {
  Deno.writeTextFileSync(
    path,
    JSON.stringify({
      schema_version: "1.4",
      developer_name: developerName,
      public_key_pem: key.publicKey.pem,
      revoked_keys: [],
    }),
  );
  return path;
}

/** `verify-schema --batch DIR` for example.com against `discovery`, pins in `pins`. */
export function batchArgs(
  dir: string,
  discovery: string,
  pins: string,
  ...extra: string[]
): string[] {
  return [
    "verify-schema",
    "--batch",
    dir,
    "--domain",
    "example.com",
    "--discovery",
    discovery,
    "--pin-store",
    pins,
    ...extra,
  ];
}
