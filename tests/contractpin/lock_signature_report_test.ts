// The lock signature's failure line (cli/contractpin/lock_signature_report.ts,
// lockSignatureFailure) that contract verify and the guard print after "error: ": the code and
// the message naming the signature file exactly once; nothing for a check that did not fail.
import assert from "node:assert/strict";
import { lockSignatureFailure } from "../../cli/contractpin/lock_signature_report.ts";
import type { LockSignatureCheck } from "../../cli/contractpin/lock_signature_check.ts";

const FILE = "contractpin.lock.sig";

function checked(result: Record<string, unknown>): LockSignatureCheck {
  return {
    status: result.valid ? "valid" : "invalid",
    required: true,
    file: FILE,
    result: result as unknown as LockSignatureCheck["result"],
  };
}

Deno.test("lockSignatureFailure: a message without the file is prefixed with it", () => {
  assert.equal(
    lockSignatureFailure(
      checked({ valid: false, errorCode: "SIGNATURE_INVALID", errorMessage: "bad" }),
    ),
    `SIGNATURE_INVALID: ${FILE}: bad`,
  );
});

Deno.test("lockSignatureFailure: a message naming the file is kept as it is", () => {
  assert.equal(
    lockSignatureFailure(
      checked({ valid: false, errorCode: "IO_FAILED", errorMessage: `${FILE}: not found` }),
    ),
    `IO_FAILED: ${FILE}: not found`,
  );
});

Deno.test("lockSignatureFailure: nothing for a valid check", () => {
  assert.equal(lockSignatureFailure(checked({ valid: true })), undefined);
});

Deno.test("lockSignatureFailure: nothing for a check that did not run", () => {
  assert.equal(
    lockSignatureFailure({ status: "not_checked", required: false, file: FILE }),
    undefined,
  );
});
