// What sign-schema is asked to write (cli/schema/sign_output.ts), without the CLI: the format
// chosen from --format and the metadata given, and a 1.4 document's options checked before
// anything is signed. Mistakes are usage errors (INPUT_INVALID with details.usage).
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { chooseSignatureFormat, schemaDocumentOptions } from "../../cli/schema/sign_output.ts";
import { throwsWith } from "../schema_pin_error.ts";

const HASH = "sha256:" + "ab".repeat(32);

Deno.test("chooseSignatureFormat: explicit and inferred formats", () => {
  assert.deepEqual(chooseSignatureFormat(undefined, []), { format: "bare", inferred: false });
  assert.deepEqual(chooseSignatureFormat(undefined, ["--domain"]), {
    format: "document",
    inferred: true,
  });
  assert.deepEqual(chooseSignatureFormat("document", []), {
    format: "document",
    inferred: false,
  });
  assert.deepEqual(chooseSignatureFormat("document", ["--domain"]), {
    format: "document",
    inferred: false,
  });
  assert.deepEqual(chooseSignatureFormat("bare", []), { format: "bare", inferred: false });
});

Deno.test("chooseSignatureFormat: bare with metadata is a usage error naming the options", () => {
  const e = throwsWith(
    () => chooseSignatureFormat("bare", ["--domain", "--signer-kid"]),
    "INPUT_INVALID",
    /^--format bare does not go with --domain, --signer-kid \(a 1\.4 document's fields\); use --format document$/,
  );
  assert.ok(isUsageError(e));
});

Deno.test("chooseSignatureFormat: a format that is not bare or document is a usage error", () => {
  for (const format of ["json", "", "BARE", "documents"]) {
    const e = throwsWith(
      () => chooseSignatureFormat(format, []),
      "INPUT_INVALID",
      new RegExp(`^--format ${JSON.stringify(format)}: give bare or document$`),
    );
    assert.ok(isUsageError(e));
  }
});

Deno.test("schemaDocumentOptions: the metadata with the version and previous hash", () => {
  const metadata = { signedAt: 1_000, domain: "example.com" };
  assert.deepEqual(schemaDocumentOptions(metadata, "2.1.0", HASH), {
    signedAt: 1_000,
    domain: "example.com",
    schemaVersion: "2.1.0",
    previousHash: HASH,
  });
  assert.deepEqual(schemaDocumentOptions(metadata, undefined, undefined), metadata);
  assert.deepEqual(metadata, { signedAt: 1_000, domain: "example.com" }, "not changed");
});

Deno.test("schemaDocumentOptions: an empty schema version is a usage error", () => {
  const e = throwsWith(
    () => schemaDocumentOptions({}, "", undefined),
    "INPUT_INVALID",
    /^--schema-version is empty$/,
  );
  assert.ok(isUsageError(e));
});

Deno.test("schemaDocumentOptions: a previous hash that is not sha256:<64 hex> is a usage error", () => {
  const cases: [string, RegExp][] = [
    ["abc", /^--previous-hash "abc" must start with "sha256:"$/],
    ["sha256:abc", /must have 64 hex digits after "sha256:", not 3$/],
    ["sha256:" + "AB".repeat(32), /hex digits must be lower case$/],
  ];
  for (const [hash, message] of cases) {
    const e = throwsWith(() => schemaDocumentOptions({}, "1.0", hash), "INPUT_INVALID", message);
    assert.ok(isUsageError(e));
  }
});
