import { childCommand } from "../process.ts";
/**
 * Test helper: real keys made with the `openssl` CLI at test time, in a temporary directory
 * removed when the test process ends.
 *
 * @module
 */

/** Runs a command and returns its stdout; throws with stderr when it fails. */
export async function run(
  command: string,
  args: string[],
  stdin?: Uint8Array,
): Promise<Uint8Array> {
  const child = childCommand(command, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/** Runs `openssl` with `args`. */
export function openssl(args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  return run("openssl", args, stdin);
}

/** Paths of the generated key files, by name. */
export interface KeyFiles {
  readonly dir: string;
  /** The text of key file `name`. */
  text(name: string): string;
  /** The path of key file `name`. */
  path(name: string): string;
}

let made: Promise<KeyFiles> | undefined;

/** Generates (once per process) every key the tests use. */
export function makeKeys(): Promise<KeyFiles> {
  made ??= generate();
  return made;
}

async function generate(): Promise<KeyFiles> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin_crypto_test_" });
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already gone */ }
  });
  const p = (name: string) => `${dir}/${name}.pem`;
  const gen = (name: string, ...opts: string[]) => openssl(["genpkey", ...opts, "-out", p(name)]);
  const pub = (from: string, name: string) =>
    openssl(["pkey", "-in", p(from), "-pubout", "-out", p(name)]);

  await gen("p256", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256");
  await pub("p256", "p256_pub");
  await openssl(["ec", "-in", p("p256"), "-out", p("p256_sec1")]);
  await openssl([
    "ec",
    "-in",
    p("p256"),
    "-pubout",
    "-conv_form",
    "compressed",
    "-out",
    p("p256_pub_compressed"),
  ]);
  await openssl(["ec", "-in", p("p256"), "-param_enc", "explicit", "-out", p("p256_explicit")]);
  await openssl([
    "ec",
    "-in",
    p("p256"),
    "-param_enc",
    "explicit",
    "-pubout",
    "-out",
    p("p256_explicit_pub"),
  ]);
  await openssl(["pkey", "-in", p("p256"), "-aes256", "-passout", "pass:x", "-out", p("p256_enc")]);
  await openssl([
    "ec",
    "-in",
    p("p256"),
    "-aes256",
    "-passout",
    "pass:x",
    "-out",
    p("p256_legacy_enc"),
  ]);
  await openssl(["ecparam", "-name", "prime256v1", "-genkey", "-out", p("p256_ecparam")]);
  await openssl([
    "req",
    "-x509",
    "-new",
    "-key",
    p("p256"),
    "-subj",
    "/CN=schemapin-test",
    "-days",
    "1",
    "-out",
    p("p256_cert"),
  ]);

  await gen("p384", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384");
  await pub("p384", "p384_pub");
  await openssl(["ec", "-in", p("p384"), "-out", p("p384_sec1")]);
  await gen("k1", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1");
  await pub("k1", "k1_pub");
  await openssl(["ec", "-in", p("k1"), "-out", p("k1_sec1")]);
  await gen("ed25519", "-algorithm", "ED25519");
  await pub("ed25519", "ed25519_pub");
  await gen("ed448", "-algorithm", "ED448");
  await pub("ed448", "ed448_pub");
  await gen("x25519", "-algorithm", "X25519");
  await pub("x25519", "x25519_pub");
  await gen("rsa", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048");
  await pub("rsa", "rsa_pub");
  await openssl(["rsa", "-in", p("rsa"), "-RSAPublicKey_out", "-out", p("rsa_pub_pkcs1")]);
  await openssl(["rsa", "-in", p("rsa"), "-traditional", "-out", p("rsa_pkcs1")]);

  const cache = new Map<string, string>();
  return {
    dir,
    path: p,
    text(name: string): string {
      let t = cache.get(name);
      if (t === undefined) {
        t = Deno.readTextFileSync(p(name));
        cache.set(name, t);
      }
      return t;
    },
  };
}

/** Asserts-friendly capture: returns the error `fn` throws, or fails the test. */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    if (e instanceof Error) return e;
    throw new Error(`threw a non-Error: ${String(e)}`);
  }
  throw new Error("expected an exception, none was thrown");
}
