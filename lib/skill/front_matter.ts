/**
 * The skill name in a `SKILL.md` front matter block (`name:` between `---` lines), which
 * `sign-skill` uses as `skill_name` unless `--name` is given.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

/**
 * The `name:` of a `SKILL.md` front matter block, or `undefined` when the text has no front
 * matter or no non-empty top-level `name`. Quotes around the value are removed.
 *
 * @example
 * ```ts
 * import { skillNameFromFrontMatter } from "./front_matter.ts";
 * skillNameFromFrontMatter("---\nname: pdf-tools\ndescription: x\n---\n# PDF"); // "pdf-tools"
 * skillNameFromFrontMatter("# no front matter"); // undefined
 * ```
 */
export function skillNameFromFrontMatter(text: string): string | undefined {
  checkArg("skillNameFromFrontMatter", "text", text, "string");
  const lines = text.replace(/^\ufeff/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return undefined;
  let name: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    // Only a closed block is front matter.
    if (line.trimEnd() === "---" || line.trimEnd() === "...") return name;
    const m = name === undefined ? /^name[ \t]*:[ \t]*(.*?)[ \t]*$/.exec(line) : null;
    if (!m) continue;
    let value = m[1];
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
    } else {
      value = value.replace(/(^|[ \t]+)#.*$/, ""); // a YAML comment after a plain value
    }
    if (value !== "") name = value;
  }
  return undefined;
}
