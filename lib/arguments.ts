/**
 * Boundary checks for the library's exported functions. A caller that passes `undefined`,
 * `null`, a number or a string where an object, bytes or a key is expected gets a
 * {@linkcode SchemaPinError} with code `INPUT_INVALID` naming the function and the argument
 * (`signSchema: sk must be a private key (parsePrivateKeyPem, generateKeyPair), got
 * undefined`), never a raw `TypeError` from deep inside ("Cannot read properties of
 * undefined").
 *
 * The checks look at the argument itself (its type, and for keys, stores and transports the
 * members the code uses), not at everything inside it: the parsers validate contents with
 * their own messages.
 *
 * @module
 */
import { SchemaPinError } from "./errors.ts";

/** A kind of argument {@linkcode checkArg} can require. */
export type ArgumentKind =
  | "string"
  | "bytes"
  | "object"
  | "array"
  | "function"
  | "date"
  | "number"
  | "boolean"
  | "map"
  | "iterable";

const KIND_WORDS: Record<ArgumentKind, string> = {
  string: "a string",
  bytes: "a Uint8Array",
  object: "an object",
  array: "an array",
  function: "a function",
  date: "a Date",
  number: "a number",
  boolean: "a boolean",
  map: "a Map",
  iterable: "an iterable (array, Set, Map keys …)",
};

/**
 * A short description of what a value is, for "got …" in messages: `undefined`, `null`,
 * `a number (42)`, `a string`, `an array`, `a Uint8Array`, `a function`, `an object`.
 *
 * @example
 * ```ts
 * import { describeValue } from "./arguments.ts";
 * describeValue(42); // "a number (42)"
 * describeValue(null); // "null"
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "number") return `a number (${value})`;
  if (typeof value === "bigint") return "a bigint";
  if (typeof value === "boolean") return `a boolean (${value})`;
  if (typeof value === "string") return "a string";
  if (typeof value === "symbol") return "a symbol";
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Uint8Array) return "a Uint8Array";
  if (ArrayBuffer.isView(value)) return `a ${value.constructor?.name ?? "typed array"}`;
  if (value instanceof Date) return "a Date";
  if (value instanceof Map) return "a Map";
  return "an object";
}

function isKind(value: unknown, kind: ArgumentKind): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "bytes":
      return value instanceof Uint8Array;
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "function":
      return typeof value === "function";
    case "date":
      return value instanceof Date;
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "map":
      return value instanceof Map;
    case "iterable":
      return typeof value === "object" && value !== null &&
        typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
  }
}

/**
 * The error for argument `name` of function `fn` that is not `expected` (words, e.g.
 * `"a private key"`).
 *
 * @example
 * ```ts
 * import { argumentError } from "./arguments.ts";
 * argumentError("signSchema", "sk", "a private key", undefined).message;
 * // "signSchema: sk must be a private key, got undefined"
 * ```
 */
export function argumentError(
  fn: string,
  name: string,
  expected: string,
  value: unknown,
): SchemaPinError {
  return new SchemaPinError(
    "INPUT_INVALID",
    `${fn}: ${name} must be ${expected}, got ${describeValue(value)}`,
    { function: fn, argument: name },
  );
}

/**
 * Throws `INPUT_INVALID` naming `fn` and `name` unless `value` is of `kind` (or one of the
 * kinds). With `optional`, `undefined` is accepted too.
 *
 * @example
 * ```ts
 * import { checkArg } from "./arguments.ts";
 * checkArg("parseJson", "bytes", new Uint8Array(), "bytes"); // fine
 * checkArg("parseJsonText", "text", 42, "string"); // throws: parseJsonText: text must be a string, got a number (42)
 * ```
 */
export function checkArg(
  fn: string,
  name: string,
  value: unknown,
  kind: ArgumentKind | readonly ArgumentKind[],
  optional = false,
): void {
  if (optional && value === undefined) return;
  const kinds: readonly ArgumentKind[] = typeof kind === "string" ? [kind] : kind;
  if (kinds.some((k) => isKind(value, k))) return;
  const words = kinds.map((k) => KIND_WORDS[k]);
  const expected = words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
  throw argumentError(fn, name, expected + (optional ? " (or undefined)" : ""), value);
}

/**
 * Throws `INPUT_INVALID` unless `value` is an object whose members `methods` are functions
 * (a pin store's `transact`, a transport's `request`); `what` names it in the message.
 *
 * @example
 * ```ts
 * import { checkMethods } from "./arguments.ts";
 * checkMethods("addPinIfAbsent", "store", undefined, ["transact"], "a PinStore");
 * // throws: addPinIfAbsent: store must be a PinStore (with transact()), got undefined
 * ```
 */
export function checkMethods(
  fn: string,
  name: string,
  value: unknown,
  methods: readonly string[],
  what: string,
): void {
  const ok = typeof value === "object" && value !== null &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function");
  if (!ok) {
    throw argumentError(
      fn,
      name,
      `${what} (with ${methods.map((m) => `${m}()`).join(", ")})`,
      value,
    );
  }
}

/**
 * Throws `INPUT_INVALID` unless `value` is a key of the library: a public key (`spki`
 * bytes, from parsePublicKeyPem or publicKeyFromDer) or a private key (`scalar` bytes and
 * its `publicKey`, from parsePrivateKeyPem or generateKeyPair).
 *
 * @example
 * ```ts
 * import { checkKeyArg } from "./arguments.ts";
 * checkKeyArg("signSchema", "sk", "-----BEGIN PRIVATE KEY-----", "private");
 * // throws: signSchema: sk must be a private key (parsePrivateKeyPem, generateKeyPair), got a string
 * ```
 */
export function checkKeyArg(
  fn: string,
  name: string,
  value: unknown,
  kind: "public" | "private",
): void {
  const v = value as Record<string, unknown> | null | undefined;
  const ok = typeof value === "object" && value !== null &&
    (kind === "public"
      ? v!.spki instanceof Uint8Array
      : v!.scalar instanceof Uint8Array && typeof v!.publicKey === "object" &&
        v!.publicKey !== null &&
        (v!.publicKey as Record<string, unknown>).spki instanceof Uint8Array);
  if (!ok) {
    throw argumentError(
      fn,
      name,
      kind === "public"
        ? "a public key (parsePublicKeyPem, publicKeyFromDer)"
        : "a private key (parsePrivateKeyPem, generateKeyPair)",
      value,
    );
  }
}

/**
 * Throws `INPUT_INVALID` unless `value` is a `Signer`: an object with a `signMessage()`
 * method and a `publicKey` of the library (from privateKeySigner or sshAgentSigner).
 *
 * @example
 * ```ts
 * import { checkSignerArg } from "./arguments.ts";
 * checkSignerArg("signSchemaWithSigner", "signer", {});
 * // throws: signSchemaWithSigner: signer must be a Signer (privateKeySigner, sshAgentSigner), got an object
 * ```
 */
export function checkSignerArg(fn: string, name: string, value: unknown): void {
  const v = value as Record<string, unknown> | null | undefined;
  const ok = typeof value === "object" && value !== null &&
    typeof v!.signMessage === "function" && typeof v!.publicKey === "object" &&
    v!.publicKey !== null && (v!.publicKey as Record<string, unknown>).spki instanceof Uint8Array;
  if (!ok) {
    throw argumentError(fn, name, "a Signer (privateKeySigner, sshAgentSigner)", value);
  }
}
