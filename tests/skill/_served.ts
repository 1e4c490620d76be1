// Signed skill folders for the tests of skills served over MCP: a ROOT holding skill folders
// (`ROOT/demo/`) signed with the project's own signer, the discovery document and public key
// of the signing key, and the Deno fixture server that serves ROOT
// (tests/fixtures/mcp/skills_server.ts).
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { writeTree } from "./trees.ts";

/** The skill's files. */
export const DEMO_FILES: Record<string, string> = {
  "SKILL.md": "---\nname: demo\ndescription: A demo skill\n---\n# Demo\nRun scripts/run.sh.\n",
  "scripts/run.sh": "#!/bin/sh\necho hello\n",
  "docs/a b.md": "spaces in the name\n",
};

/** A temporary ROOT with signed skills, and the trust to verify them. */
export interface ServedRoot {
  /** The folder served. */
  readonly root: string;
  /** `root/demo`. */
  readonly dir: string;
  /** The signing key. */
  readonly key: PrivateKey;
  /** Its discovery document and public key, as files. */
  readonly discovery: string;
  readonly publicKey: string;
  /** A pin store path that does not exist yet. */
  readonly pins: string;
  /** Removes everything. */
  cleanup(): Promise<void>;
}

/** Signs `dir` with `key` for example.com into its `.schemapin.sig`. */
export async function signFolder(dir: string, key: PrivateKey): Promise<void> {
  const { document } = await signSkillDir(dir, key, { domain: "example.com" });
  await Deno.writeTextFile(`${dir}/.schemapin.sig`, formatSkillSignatureDocument(document));
}

/** A ROOT with `demo` signed (unless `signed` is false), with `files` over the defaults. */
export async function servedRoot(
  options: { signed?: boolean; files?: Record<string, string>; key?: PrivateKey } = {},
): Promise<ServedRoot> {
  const base = await Deno.makeTempDir({ prefix: "schemapin-served-" });
  const root = `${base}/root`;
  const dir = `${root}/demo`;
  await writeTree(dir, { ...DEMO_FILES, ...options.files });
  const key = options.key ?? generateKeyPair();
  if (options.signed !== false) await signFolder(dir, key);
  const discovery = `${base}/schemapin.json`;
  await Deno.writeTextFile(
    discovery,
    JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
  );
  const publicKey = `${base}/public.pem`;
  await Deno.writeTextFile(publicKey, key.publicKey.pem);
  return {
    root,
    dir,
    key,
    discovery,
    publicKey,
    pins: `${base}/pins.json`,
    cleanup: () => Deno.remove(base, { recursive: true }),
  };
}

const SERVER = new URL("../fixtures/mcp/skills_server.ts", import.meta.url).pathname;

/** The command that serves `root` with the Deno fixture server and `options`. */
export function fixtureServer(root: string, ...options: string[]): string[] {
  return [Deno.execPath(), "run", "--quiet", "--allow-read", SERVER, root, ...options];
}
