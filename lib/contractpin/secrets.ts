/**
 * Keeping credentials out of the lock (contractpin spec §5 "Secrets") and putting them back
 * at run time: `${VAR}` expansion, URL and env sanitising, and warnings for
 * command arguments that look like secrets.
 *
 * @module
 */
import { shellQuote } from "./display_text.ts";
import { SchemaPinError } from "../errors.ts";
import type { ServerIdentity } from "./lock.ts";
import { checkArg } from "../arguments.ts";
import { redactUrl } from "../mcp/redact.ts";
import {
  ALLOW_LITERAL_SECRETS,
  HEADER_INSTEAD,
  HEADER_TEMPLATE,
  LITERAL_SECRETS_ALLOWED,
} from "../option_hints.ts";
import process from "node:process";

export { redactUrl };
import { isDeno } from "../runtime/fs.ts";

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** Reads an environment variable; `undefined` when unset. Tests pass a map instead. */
export type EnvLookup = (name: string) => string | undefined;

/**
 * The process environment as an {@linkcode EnvLookup}. A variable the permissions do not let
 * us read is an `INPUT_INVALID` error that says which flag to add.
 *
 * @example
 * ```ts ignore
 * import { processEnv } from "./secrets.ts";
 * processEnv("HOME");
 * ```
 */
export function processEnv(name: string): string | undefined {
  try {
    return isDeno ? Deno.env.get(name) : process.env[name];
  } catch (e) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `cannot read environment variable ${name} for \${${name}}: ${(e as Error).message} ` +
        `(run with --allow-env)`,
      { variable: name },
    );
  }
}

/**
 * Expands every `${VAR}` in `template` from `env`. An unset variable is an error — never an
 * empty string that would silently send `Authorization: Bearer `.
 *
 * @param where names the template in the error ("header Authorization", "env GITHUB_TOKEN")
 * @throws {SchemaPinError} `INPUT_INVALID` naming the unset variable
 *
 * @example
 * ```ts
 * import { expandVariables } from "./secrets.ts";
 * expandVariables("Bearer ${T}", (n) => (n === "T" ? "abc" : undefined), "header"); // "Bearer abc"
 * ```
 */
export function expandVariables(template: string, env: EnvLookup, where: string): string {
  checkArg("expandVariables", "template", template, "string");
  checkArg("expandVariables", "env", env, "function");
  checkArg("expandVariables", "where", where, "string");
  return template.replace(REFERENCE, (_, name: string) => {
    const value = env(name);
    if (value === undefined) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${where}: environment variable ${name} is not set (needed for \${${name}})`,
        { variable: name, where },
      );
    }
    return value;
  });
}

/**
 * True when `value` is exactly one `${VAR}` reference.
 *
 * @example
 * ```ts
 * import { isReference } from "./secrets.ts";
 * isReference("${TOKEN}"); // true
 * isReference("Bearer ${TOKEN}"); // false
 * ```
 */
export function isReference(value: string): boolean {
  return WHOLE_REFERENCE.test(value);
}

/** A header as given on the command line: its name and its unexpanded value template. */
export interface HeaderTemplate {
  /** Header name as given. */
  readonly name: string;
  /** Value, possibly with `${VAR}` references. */
  readonly value: string;
}

/**
 * Expands header templates into a `Headers`-ready list.
 *
 * @example
 * ```ts
 * import { expandHeaders } from "./secrets.ts";
 * expandHeaders([{ name: "X-Key", value: "${K}" }], () => "v"); // [["X-Key", "v"]]
 * ```
 */
export function expandHeaders(
  headers: readonly HeaderTemplate[],
  env: EnvLookup,
): [string, string][] {
  return headers.map((h): [string, string] => {
    const where = `${HEADER_TEMPLATE} ${h.name}`;
    return [h.name, expandVariables(h.value, env, where)];
  });
}

const SECRET_NAME =
  /(^|[^a-z])(token|secret|passw(or)?d|pwd|pass|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credentials?|auth|authorization|cookie|session|signature|sig|bearer|client[-_]?secret|dsn|key)([^a-z]|$)/i;
const SECRET_VALUE = [
  /^(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}/, // GitHub
  /^(sk|rk|pk)[-_](live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}/, // OpenAI, Stripe, Anthropic …
  /^xox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /^(AKIA|ASIA)[A-Z0-9]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{30,}/, // Google API key
  /^glpat-[A-Za-z0-9_-]{16,}/, // GitLab
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, // JWT
  /^(bearer|basic|token)\s+\S{8,}/i, // an Authorization value
  /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i, // URL with a password
];

/**
 * True when an env or parameter name suggests a credential (`GITHUB_TOKEN`, `api_key`,
 * `DB_PASSWORD`, …).
 *
 * @example
 * ```ts
 * import { looksLikeSecretName } from "./secrets.ts";
 * looksLikeSecretName("GITHUB_TOKEN"); // true
 * looksLikeSecretName("NODE_ENV"); // false
 * ```
 */
export function looksLikeSecretName(name: string): boolean {
  return SECRET_NAME.test(name.replace(/([a-z])([A-Z])/g, "$1_$2"));
}

/**
 * True when a value looks like a credential: a known token shape (GitHub, Slack, AWS, JWT,
 * `sk-…`), an Authorization value, a URL with a password, or a long high-entropy string.
 *
 * @example
 * ```ts
 * import { looksLikeSecretValue } from "./secrets.ts";
 * looksLikeSecretValue("ghp_0123456789abcdefghijABCDEFGHIJ"); // true
 * looksLikeSecretValue("production"); // false
 * ```
 */
export function looksLikeSecretValue(value: string): boolean {
  if (isReference(value)) return false;
  if (SECRET_VALUE.some((re) => re.test(value))) return true;
  // A long run of base64/hex-ish characters mixing letters and digits — but not a file path
  // (`/tmp/run-3f9a…/pid` has the same characters).
  return /^[A-Za-z0-9+/=_-]{32,}$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value) &&
    !/^(\.{0,2}\/|~\/)/.test(value);
}

/** A warning produced while sanitising an identity for the lock. */
export interface SecretWarning {
  /** What the warning is about ("env GITHUB_TOKEN", "url", "command[3]"). */
  readonly where: string;
  /** The warning text (never contains the secret). */
  readonly message: string;
}

/**
 * Sanitises an `env` map for the lock: `${VAR}` references and non-secret literals are kept;
 * a literal whose name or value looks secret is replaced by the reference `${NAME}` (so
 * verify reads it from the environment) and a warning says so.
 *
 * @example
 * ```ts
 * import { sanitizeEnv } from "./secrets.ts";
 * const warnings: { where: string; message: string }[] = [];
 * sanitizeEnv({ API_TOKEN: "s3cr3t", MODE: "fast" }, warnings);
 * // { API_TOKEN: "${API_TOKEN}", MODE: "fast" }
 * ```
 */
export function sanitizeEnv(
  env: Record<string, string>,
  warnings: SecretWarning[],
): Record<string, string> {
  checkArg("sanitizeEnv", "env", env, "object");
  checkArg("sanitizeEnv", "warnings", warnings, "array");
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (isReference(value) || (!looksLikeSecretName(name) && !looksLikeSecretValue(value))) {
      out[name] = value;
      continue;
    }
    out[name] = `\${${name}}`;
    if (value !== `\${${name}}`) {
      warnings.push({
        where: `env ${name}`,
        message: `env ${name} looks secret: its value is not written to the lock, which ` +
          `stores \${${name}} instead; set ${name} in the environment when verifying`,
      });
    }
  }
  return out;
}

/**
 * Sanitises an endpoint URL for the lock: userinfo is dropped, and so is any query parameter
 * whose name looks like a credential unless its value is a `${VAR}` reference. The fragment is
 * dropped (it is never sent).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a URL that is not absolute http(s)
 *
 * @example
 * ```ts
 * import { sanitizeUrl } from "./secrets.ts";
 * sanitizeUrl("https://u:p@example.com/mcp?api_key=xyz&region=eu", []);
 * // "https://example.com/mcp?region=eu"
 * ```
 */
export function sanitizeUrl(raw: string, warnings: SecretWarning[]): string {
  checkArg("sanitizeUrl", "raw", raw, "string");
  checkArg("sanitizeUrl", "warnings", warnings, "array");
  // Validate with references replaced (a URL parser would lowercase or percent-encode them),
  // then edit the raw text so `${VAR}` references survive byte for byte.
  parseEndpoint(raw.replace(REFERENCE, "x"));
  const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(?:\?([^#]*))?/s.exec(raw.trim());
  if (!m) throw new SchemaPinError("INPUT_INVALID", `not an absolute URL: ${redactUrl(raw)}`, {});
  const [, scheme, authority, path, query] = m;
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    warnings.push({
      where: "url",
      message: "credentials in the URL (user:password@) are not written to the lock; " +
        `send them with ${HEADER_INSTEAD}`,
    });
  }
  const kept: string[] = [];
  for (const pair of (query ?? "").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    let name = rawName;
    let value = rawValue;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, " "));
      value = decodeURIComponent(rawValue.replace(/\+/g, " "));
    } catch { /* keep raw text for the checks */ }
    if ((looksLikeSecretName(name) || looksLikeSecretValue(value)) && !isReference(value)) {
      warnings.push({
        where: "url",
        message: `query parameter ${JSON.stringify(name)} looks like a credential and is not ` +
          `written to the lock; use ${name}=\${VAR} or ${HEADER_INSTEAD}`,
      });
      continue;
    }
    kept.push(pair);
  }
  const base = scheme.toLowerCase() + authority.slice(at + 1) + (path || "/");
  return kept.length ? `${base}?${kept.join("&")}` : base;
}

/**
 * Parses an MCP endpoint: absolute `http:` or `https:` URL. `${VAR}` references are allowed
 * (they are expanded at run time).
 *
 * @throws {SchemaPinError} `INPUT_INVALID`
 *
 * @example
 * ```ts
 * import { parseEndpoint } from "./secrets.ts";
 * parseEndpoint("http://127.0.0.1:3000/mcp").port; // "3000"
 * ```
 */
export function parseEndpoint(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `not an absolute URL: ${redactUrl(raw)}`, {});
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `MCP endpoint must be http: or https: (got ${url.protocol})`,
      {},
    );
  }
  return url;
}

/** A command argument that holds a literal credential. */
export interface SecretArgument {
  /** Its index in the command (0 is the program). */
  readonly index: number;
  /** The argument with the credential replaced by `…` (safe to print). */
  readonly shown: string;
  /** What makes it a credential. */
  readonly reason: string;
  /** The same argument with the credential taken from the environment (`${VAR}`). */
  readonly suggestion: string;
}

/** An environment variable name for a flag or header name: `--api-key` → `API_KEY`. */
function variableFor(name: string): string {
  const v = name.replace(/^-+/, "").replace(/([a-z])([A-Z])/g, "$1_$2").replace(
    /[^A-Za-z0-9]+/g,
    "_",
  )
    .replace(/^_+|_+$/g, "").toUpperCase();
  return v === "" || /^[0-9]/.test(v) ? `SECRET_${v}` : v;
}

/** Values that name a credential but are not one: file paths, numbers, booleans, empty. */
function isHarmlessValue(value: string): boolean {
  return value === "" || /^(\.{0,2}\/|~\/)/.test(value) || /^-?[0-9.]+$/.test(value) ||
    /^(true|false|yes|no|on|off|none|null)$/i.test(value);
}

/** Flag names that name a credential's location or size, not the credential. */
const NOT_A_CREDENTIAL_FLAG = /[-_](file|path|dir|env|var|name|length|size|timeout|ttl|id)$/i;

const HEADER = /^([A-Za-z0-9][A-Za-z0-9-]*)\s*:\s*(.*)$/s;
const AUTH_SCHEME = /^(bearer|basic|token|digest)\s+(\S.*)$/is;
const URL_IN_TEXT = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>]+/g;
const TOKEN_SHAPED = "a value shaped like a token";

/**
 * The credential in `text` (an argument or a flag's value), if any: a URL with a password or a
 * credential query parameter, an `Authorization`-like header, an auth scheme value, or a known
 * token shape. `${VAR}` references are never credentials.
 */
function credentialIn(text: string): { reason: string; suggestion: string; shown: string } | null {
  if (WHOLE_REFERENCE.test(text.trim())) return null;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0];
    const user = /^([^:]+:\/\/)([^/@?#:]*):([^/@?#]*)@/.exec(url);
    if (user && user[3] !== "" && !WHOLE_REFERENCE.test(user[3])) {
      const fix = `${user[1]}${user[2]}:\${${variableFor(user[2] || "password")}_PASSWORD}@`;
      const shownUrl = `${user[1]}${user[2]}:…@`;
      return {
        reason: "a URL with a password",
        suggestion: text.replace(user[0], fix),
        shown: text.replace(user[0], shownUrl),
      };
    }
    const q = url.indexOf("?");
    if (q >= 0) {
      for (const pair of url.slice(q + 1).split(/[&#]/)) {
        const eq = pair.indexOf("=");
        if (eq <= 0) continue;
        const name = pair.slice(0, eq), value = pair.slice(eq + 1);
        if (value === "" || WHOLE_REFERENCE.test(value)) continue;
        if (looksLikeSecretName(name) || looksLikeSecretValue(value)) {
          return {
            reason: `a URL with the credential query parameter ${JSON.stringify(name)}`,
            suggestion: text.replace(pair, `${name}=\${${variableFor(name)}}`),
            shown: text.replace(pair, `${name}=…`),
          };
        }
      }
    }
  }
  const header = HEADER.exec(text);
  if (header && !text.includes("://")) {
    const [, name, value] = header;
    const scheme = AUTH_SCHEME.exec(value);
    const secretPart = scheme ? scheme[2] : value;
    if (
      !WHOLE_REFERENCE.test(secretPart.trim()) && secretPart.trim() !== "" &&
      (scheme !== null || /^(authorization|proxy-authorization|cookie)$/i.test(name) ||
        (looksLikeSecretName(name) && !isHarmlessValue(value)))
    ) {
      const variable = scheme ? "TOKEN" : variableFor(name);
      const prefix = scheme ? `${value.slice(0, value.length - scheme[2].length)}` : "";
      return {
        reason: `a ${name} header value`,
        suggestion: `${name}: ${prefix}\${${variable}}`,
        shown: `${name}: ${prefix}…`,
      };
    }
  }
  const scheme = AUTH_SCHEME.exec(text);
  if (scheme && !WHOLE_REFERENCE.test(scheme[2].trim())) {
    const prefix = text.slice(0, text.length - scheme[2].length);
    return {
      reason: "an Authorization value",
      suggestion: `${prefix}\${TOKEN}`,
      shown: `${prefix}…`,
    };
  }
  // A URL was checked above, part by part (its own password or query may be `${VAR}`).
  if (!/[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text) && looksLikeSecretValue(text)) {
    return { reason: TOKEN_SHAPED, suggestion: "${TOKEN}", shown: "…" };
  }
  return null;
}

/**
 * Finds command arguments that hold a literal credential (contractpin §5: a lock writer MUST
 * NOT persist credentials): `--api-key=VALUE` and `--api-key VALUE` (any flag whose name
 * suggests a credential, unless the value is a path, number or boolean), `Authorization:`-like
 * header values, `Bearer`/`Basic`/`token` values, URLs with `user:password@` or credential
 * query parameters anywhere in an argument, and known token shapes (`ghp_…`, `sk-…`, JWTs, long
 * high-entropy strings). `${VAR}` references are not credentials: they are expanded at run time
 * and the lock keeps the reference, which is what each finding's `suggestion` shows.
 *
 * @example
 * ```ts
 * import { findSecretArguments } from "./secrets.ts";
 * const [f] = findSecretArguments(["srv", "--api-key=sk-live-0123456789abcdef0123"]);
 * console.log(f.index, f.shown, f.suggestion); // 1 --api-key=… --api-key=${API_KEY}
 * ```
 */
export function findSecretArguments(command: readonly string[]): SecretArgument[] {
  checkArg("findSecretArguments", "command", command, "array");
  const out: SecretArgument[] = [];
  command.forEach((arg, index) => {
    if (index === 0) return;
    const flag = /^(--?[A-Za-z0-9][A-Za-z0-9_.-]*)=(.*)$/s.exec(arg);
    if (flag) {
      const [, name, value] = flag;
      const inner = credentialIn(value);
      const namedSecret = looksLikeSecretName(name) && !NOT_A_CREDENTIAL_FLAG.test(name);
      // A token-shaped value under a credential's flag name is named after the flag.
      if (inner && !(inner.reason === TOKEN_SHAPED && namedSecret)) {
        out.push({
          index,
          reason: inner.reason,
          shown: `${name}=${inner.shown}`,
          suggestion: `${name}=${inner.suggestion}`,
        });
        return;
      }
      if (namedSecret && !isHarmlessValue(value) && !WHOLE_REFERENCE.test(value)) {
        out.push({
          index,
          reason: `the value of ${name}`,
          shown: `${name}=…`,
          suggestion: `${name}=\${${variableFor(name)}}`,
        });
      }
      return;
    }
    const previous = /^(--?[A-Za-z0-9][A-Za-z0-9_.-]*)$/.exec(command[index - 1] ?? "");
    if (
      index > 1 && previous && !arg.startsWith("-") && looksLikeSecretName(previous[1]) &&
      !NOT_A_CREDENTIAL_FLAG.test(previous[1]) && !isHarmlessValue(arg) &&
      !WHOLE_REFERENCE.test(arg)
    ) {
      out.push({
        index,
        reason: `the value of ${previous[1]}`,
        shown: "…",
        suggestion: `\${${variableFor(previous[1])}}`,
      });
      return;
    }
    const found = credentialIn(arg);
    if (found) out.push({ index, ...found });
  });
  return out;
}

/**
 * A command safe to print in reports and logs: every argument {@linkcode findSecretArguments}
 * flags is shown with its credential replaced by `…`.
 *
 * @example
 * ```ts
 * import { redactCommand } from "./secrets.ts";
 * redactCommand(["srv", "--token", "ghp_0123456789abcdefghij0123"]); // ["srv", "--token", "…"]
 * ```
 */
export function redactCommand(command: readonly string[]): string[] {
  checkArg("redactCommand", "command", command, "array");
  const out = [...command];
  for (const f of findSecretArguments(command)) out[f.index] = f.shown;
  return out;
}

/**
 * The error for literal credentials in a stdio command: names each argument (credential
 * hidden) and shows the `${VAR}` form to use instead.
 */
function literalSecretError(server: string, found: SecretArgument[]): SchemaPinError {
  const lines = found.map((f) =>
    `  argument ${f.index} (${f.shown}) is ${f.reason}; write ${shellQuote(f.suggestion)} ` +
    `and set the variable when running init and verify`
  );
  return new SchemaPinError(
    "INPUT_INVALID",
    `server ${server}: the command holds ${found.length === 1 ? "a credential" : "credentials"} ` +
      `that would be written to the lock as given (contractpin §5):\n${lines.join("\n")}\n` +
      `  (\${VAR} is expanded from the environment at run time and the lock keeps the reference; ` +
      `${LITERAL_SECRETS_ALLOWED})`,
    { server, arguments: found.map((f) => f.index) },
  );
}

/**
 * Makes an identity safe to write (§5 "Secrets"): env sanitised, URL sanitised, and a command
 * holding a literal credential refused ({@linkcode findSecretArguments}) unless
 * `allowLiteralSecrets` (then each is a warning). Headers are never part of an identity.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming each credential argument and its `${VAR}` form
 *
 * @example
 * ```ts
 * import { sanitizeIdentity } from "./secrets.ts";
 * const { identity } = sanitizeIdentity({ transport: "http", url: "https://h/mcp?token=t" });
 * console.log(identity); // { transport: "http", url: "https://h/mcp" }
 * ```
 */
export function sanitizeIdentity(
  identity: ServerIdentity,
  options: { server?: string; allowLiteralSecrets?: boolean } = {},
): { identity: ServerIdentity; warnings: SecretWarning[] } {
  checkArg("sanitizeIdentity", "identity", identity, "object");
  checkArg("sanitizeIdentity", "options", options, "object");
  const warnings: SecretWarning[] = [];
  switch (identity.transport) {
    case "stdio": {
      const found = findSecretArguments(identity.command);
      if (found.length > 0 && !options.allowLiteralSecrets) {
        throw literalSecretError(options.server ?? "?", found);
      }
      for (const f of found) {
        warnings.push({
          where: `command[${f.index}]`,
          message: `command argument ${f.index} (${f.shown}) is ${f.reason} and is written to ` +
            `the lock as given (${ALLOW_LITERAL_SECRETS})`,
        });
      }
      const out: ServerIdentity = { transport: "stdio", command: [...identity.command] };
      if (identity.env && Object.keys(identity.env).length > 0) {
        out.env = sanitizeEnv(identity.env, warnings);
      }
      if (identity.cwd !== undefined) out.cwd = identity.cwd;
      return { identity: out, warnings };
    }
    case "http":
      return {
        identity: { transport: "http", url: sanitizeUrl(identity.url, warnings) },
        warnings,
      };
    case "file":
      return { identity: { ...identity }, warnings };
  }
}
