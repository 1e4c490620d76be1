// The developer_name and signature_format of the verify commands' JSON
// (cli/trust/json_fields.ts); misuse is INPUT_INVALID.
import assert from "node:assert/strict";
import { developerNameJson, signatureFormatJson } from "../../cli/trust/json_fields.ts";
import { throwsWith } from "../schema_pin_error.ts";

Deno.test("developerNameJson: the discovery document's name", () => {
  assert.equal(
    developerNameJson({ developerName: "Acme", discoverySource: "schemapin.json" }),
    "Acme",
  );
  assert.equal(developerNameJson({ developerName: "Acme" }), "Acme");
});

Deno.test("developerNameJson: null for a --public-key key's name, or none", () => {
  assert.equal(
    developerNameJson({
      developerName: "(--public-key pub.pem)",
      discoverySource: "--public-key pub.pem",
    }),
    null,
  );
  assert.equal(developerNameJson({}), null);
  assert.equal(developerNameJson({ developerName: "" }), null);
  // Parentheses alone do not make it the CLI's name: it must be the source's.
  assert.equal(
    developerNameJson({ developerName: "(Acme)", discoverySource: "schemapin.json" }),
    "(Acme)",
  );
});

Deno.test("signatureFormatJson: bare, document and legacy; the skill's 1.4 is a document", () => {
  assert.equal(signatureFormatJson("bare"), "bare");
  assert.equal(signatureFormatJson("document"), "document");
  assert.equal(signatureFormatJson("1.4"), "document");
  assert.equal(signatureFormatJson("legacy"), "legacy");
  assert.equal(signatureFormatJson(undefined), undefined);
});

Deno.test("developerNameJson refuses what is not a result", () => {
  for (const result of [undefined, null, "Acme", 1]) {
    throwsWith(
      () => developerNameJson(result as unknown as { developerName?: string }),
      "INPUT_INVALID",
      /developerNameJson: result must be an object/,
    );
  }
});

Deno.test("signatureFormatJson refuses a format that is not a string", () => {
  for (const format of [null, 1, {}, ["bare"]]) {
    throwsWith(
      () => signatureFormatJson(format as unknown as string),
      "INPUT_INVALID",
      /signatureFormatJson: format must be a string \(or undefined\)/,
    );
  }
});
