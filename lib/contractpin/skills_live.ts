/**
 * Skills in the live operations of contractpin (docs/contractpin-skills.md): the typed options
 * of a run (counts and sizes in bytes), fetching the skills on the open session of every
 * enumeration (`ListOptions.afterList`, lib/skill/served_fetch.ts), the problems that refuse a
 * pin (each naming the server, the skill and the file), and the hidden-text lint over every
 * UTF-8 file.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { checkArg } from "../arguments.ts";
import { ServerFailure } from "../mcp/errors.ts";
import type { ListedSession, ListOptions } from "../mcp/session.ts";
import type { SkillProblem } from "../skill/served_check.ts";
import {
  fetchServedSkills,
  type ServedSkills,
  type SkillFetchOptions,
} from "../skill/served_fetch.ts";
import { findHiddenText, type ToolHiddenTextFinding } from "./hidden_text.ts";

/** How the skills of a server are fetched and which problems refuse them. */
export interface SkillRunOptions extends SkillFetchOptions {
  /** Pin a dynamic skill (no `resources`) by its frontmatter instead of refusing it. */
  allowDynamic?: boolean;
  /** Do not fetch skills at all. */
  skip?: boolean;
}

/**
 * `options` with an `afterList` that fetches the skills of the session into `sink` (after any
 * `afterList` already there). A `SchemaPinError` of a malformed listing becomes a
 * `ServerFailure` of the enumeration.
 *
 * @example
 * ```ts ignore
 * const box: { skills?: ServedSkills } = {};
 * await enumerateTarget(target, withSkillFetch({}, {}, box));
 * ```
 */
export function withSkillFetch(
  options: ListOptions,
  skills: SkillRunOptions,
  sink: { skills?: ServedSkills },
): ListOptions {
  checkArg("withSkillFetch", "options", options, "object");
  if (skills.skip || options.toolsOnly) return options;
  const before = options.afterList;
  return {
    ...options,
    afterList: async (session: ListedSession) => {
      await before?.(session);
      try {
        sink.skills = await fetchServedSkills(session, skills);
      } catch (e) {
        if (e instanceof SchemaPinError) {
          throw new ServerFailure("malformed", `${session.source}: skills: ${e.message}`);
        }
        throw e;
      }
    },
  };
}

/**
 * The problems that refuse the skills of a server: every contradiction, and a dynamic skill
 * unless `allowDynamic`.
 *
 * @example
 * ```ts
 * import { refusingProblems } from "./skills_live.ts";
 * refusingProblems(undefined, false); // []
 * ```
 */
export function refusingProblems(
  served: ServedSkills | undefined,
  allowDynamic: boolean,
): SkillProblem[] {
  return (served?.skills ?? []).flatMap((s) =>
    s.problems.filter((p) => !(allowDynamic && p.kind === "dynamic"))
  );
}

/**
 * One problem as a line: `server S: skill URI: file URI: message` (no file part when the
 * problem is about the skill as a whole).
 *
 * @example
 * ```ts
 * import { skillProblemLine } from "./skills_live.ts";
 * skillProblemLine("docs", {
 *   skill: "skill://a/SKILL.md",
 *   file: "skill://a/SKILL.md",
 *   kind: "size",
 *   message: "listed 3 bytes, served 4",
 * }); // "server docs: skill skill://a/SKILL.md: file skill://a/SKILL.md: listed 3 bytes, served 4"
 * ```
 */
export function skillProblemLine(server: string, p: SkillProblem): string {
  return `server ${server}: skill ${p.skill}: ` + (p.file ? `file ${p.file}: ` : "") + p.message;
}

/**
 * The URIs of the dynamic skills served (pinned by their frontmatter only, when allowed).
 *
 * @example
 * ```ts
 * import { dynamicSkills } from "./skills_live.ts";
 * dynamicSkills(undefined); // []
 * ```
 */
export function dynamicSkills(served: ServedSkills | undefined): string[] {
  return (served?.skills ?? []).filter((s) => s.pinned.resources === undefined)
    .map((s) => s.pinned.uri);
}

/**
 * The text of `bytes` when they are UTF-8, else `undefined` (a binary file).
 *
 * @example
 * ```ts
 * import { utf8Text } from "./skills_live.ts";
 * utf8Text(new Uint8Array([0xff])); // undefined
 * ```
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The hidden-text lint (`findHiddenText`) over every UTF-8 file of every skill served: each
 * finding names the file's URI and the kind `skill`, its pointer empty (the file is the item).
 *
 * @example
 * ```ts ignore
 * for (const f of findSkillsHiddenText(live.skills)) console.log(f.tool, f.kind);
 * ```
 */
export function findSkillsHiddenText(served: ServedSkills | undefined): ToolHiddenTextFinding[] {
  const out: ToolHiddenTextFinding[] = [];
  for (const s of served?.skills ?? []) {
    for (const f of s.files) {
      const text = utf8Text(f.content);
      if (text === undefined) continue;
      const uri = s.entry.resources?.find((r) => r.path === f.path)?.uri ??
        `${s.entry.root}/${f.path}`;
      for (const h of findHiddenText({ text })) {
        out.push({ tool: uri, item_kind: "skill", ...h, pointer: "" });
      }
    }
  }
  return out;
}
