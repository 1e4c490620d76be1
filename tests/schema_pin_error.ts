// Assertions on the library's one error type (lib/errors.ts): a call that throws, or a promise
// that rejects, with a SchemaPinError of the given code (and message).
import assert from "node:assert/strict";
import { SchemaPinError } from "../lib/errors.ts";

function check(e: unknown, code: string, message?: RegExp): SchemaPinError {
  assert.ok(e instanceof SchemaPinError, String(e));
  assert.equal(e.code, code, e.message);
  if (message !== undefined) assert.match(e.message, message);
  return e;
}

/** `f()` throws a `SchemaPinError` with `code` (and a message matching `message`). */
export function throwsWith(f: () => unknown, code: string, message?: RegExp): SchemaPinError {
  try {
    f();
  } catch (e) {
    return check(e, code, message);
  }
  assert.fail(`expected ${code}`);
}

/** `p` rejects with a `SchemaPinError` with `code` (and a message matching `message`). */
export async function rejectsWith(
  p: Promise<unknown>,
  code: string,
  message?: RegExp,
): Promise<SchemaPinError> {
  try {
    await p;
  } catch (e) {
    return check(e, code, message);
  }
  assert.fail(`expected ${code}`);
}
