// A skill folder signed for the tests that read its signature before verifying.
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";

// The key the folders are signed with.
const key = generateKeyPair();

/** Files read as they are. */
export const read = (path: string) => Deno.readFile(path);

/** Writes a one-file skill into `dir` and returns its 1.4 signature document for example.com. */
export async function signed(dir: string): Promise<string> {
  Deno.writeTextFileSync(`${dir}/SKILL.md`, "---\nname: demo\n---\n");
  const { document } = await signSkillDir(dir, key, { domain: "example.com" });
  return formatSkillSignatureDocument(document);
}
