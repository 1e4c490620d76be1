// The text of each warning code of a verification result (lib/schema/verify_notes.ts).
import assert from "node:assert/strict";
import { describeVerifyWarning } from "../../cli/schema/verify_notes.ts";

Deno.test("describeVerifyWarning: the known codes have their text", () => {
  assert.equal(
    describeVerifyWarning("signature_expired"),
    "the signature has expired; accepted only because of --allow-expired",
  );
  assert.equal(
    describeVerifyWarning("dns_multiple_records"),
    "several _schemapin TXT records carry v=schemapin1; the first one was used (§17.1)",
  );
  assert.match(describeVerifyWarning("legacy_signature_format"), /^legacy signature format/);
});

Deno.test("describeVerifyWarning: unprotected fields are listed", () => {
  assert.equal(
    describeVerifyWarning("unprotected_fields", ["note", "x"]),
    "the signature document has fields its signature does not cover: note, x (ignored)",
  );
  assert.equal(
    describeVerifyWarning("unprotected_fields"),
    "the signature document has fields its signature does not cover",
  );
});

Deno.test("describeVerifyWarning: an unknown code is shown as itself, fields or not", () => {
  assert.equal(describeVerifyWarning("something_new"), "something_new");
  assert.equal(describeVerifyWarning("something_new", ["a"]), "something_new");
  assert.equal(describeVerifyWarning(""), "");
});

Deno.test("describeVerifyWarning: a code named like an Object property is shown as itself", () => {
  for (const code of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
    assert.equal(describeVerifyWarning(code), code);
  }
});
