// .ci/run, the CI entry point, with stand-in apt-get, npx and python3 on a PATH of its own: a
// failed install of the test tools ends the run (exit 1, the suite never starts), a good one
// goes on to `npx deno@… task ci` with CI=true, and tools already present are not installed
// again. The real MCP peers (the Python MCP SDK and FastMCP, each in a venv, the conformance
// suite from npm) are installed the same way: a failure ends the run naming them, and a venv
// already holding the right version is kept (one holding another version is made again).
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const repo = new URL("../", import.meta.url).pathname;
const SCRIPT = `${repo}.ci/run`;

/** The real program `tool` (the stand-in PATH has none). */
function which(tool: string): string {
  const found = ["/usr/bin", "/bin"].map((d) => `${d}/${tool}`).find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  assert.ok(found, `${tool} not found in /usr/bin or /bin`);
  return found;
}
const BASH = which("bash");

interface Run {
  code: number;
  stderr: string;
  apt: string[];
  npx: string[];
  /** The calls of the stand-in python3, of the venvs' python it made, and of venvs already there. */
  python: string[];
}

/**
 * How the stand-in python3 behaves: absent, or its venvs' pip install exits `pipExit`
 * (`fastmcpPipExit` for the install of fastmcp, when given).
 */
type Python = "absent" | { pipExit: number; fastmcpPipExit?: number };

/** Where .ci/run keeps the peer venvs, under the stand-in HOME. */
const PEERS = ".cache/schemapin-ci";

/**
 * Runs .ci/run with PATH = a folder holding only `dirname`, `id`, `rm`, `mktemp` (links to the real
 * ones), a stand-in `apt-get` exiting `aptExit`, a stand-in `npx` (printing its own path, as
 * the path of whatever it was asked for), stand-ins for `present` tools, and a stand-in
 * `python3` whose `-m venv DIR` makes DIR/bin/python, a stand-in whose pip install exits
 * `python.pipExit` (or `python.fastmcpPipExit` installing fastmcp). `venvs` are venvs already
 * there (folder name under ~/.cache/schemapin-ci → the exit code of their python's `-c` version
 * check), with a stand-in python logged as `old-python`. Each stand-in appends its arguments and
 * the CI variable to a log.
 */
async function ciRun(
  aptExit: number,
  present: string[] = [],
  python: Python = "absent",
  venvs: Record<string, number> = {},
): Promise<Run> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-ci-run-" });
  try {
    const bin = `${dir}/bin`;
    await Deno.mkdir(bin);
    for (const tool of ["dirname", "id", "rm", "mktemp"]) {
      await Deno.symlink(which(tool), `${bin}/${tool}`);
    }
    const standIn = async (name: string, exit: number, body = "", path = `${bin}/${name}`) => {
      await Deno.writeTextFile(
        path,
        `#!${BASH}\necho "${name} CI=$CI $*" >> "${dir}/log"\n${body}exit ${exit}\n`,
        { mode: 0o755 },
      );
    };
    await standIn("apt-get", aptExit);
    await standIn("npx", 0, 'echo "$0"\n');
    for (const tool of present) await standIn(tool, 0);
    if (python !== "absent") {
      await standIn(
        "venv-python",
        0,
        `if [ "$1 $2" = "-m pip" ]; then case "$*" in *fastmcp==*) exit ${
          python.fastmcpPipExit ?? python.pipExit
        };; esac; exit ${python.pipExit}; fi\n`,
        `${dir}/venv-python`,
      );
      await standIn(
        "python3",
        0,
        `if [ "$1 $2" = "-m venv" ]; then ${which("mkdir")} -p "$3/bin" && ${
          which("cp")
        } "${dir}/venv-python" "$3/bin/python"; fi\n`,
      );
    }
    for (const [name, check] of Object.entries(venvs)) {
      await Deno.mkdir(`${dir}/${PEERS}/${name}/bin`, { recursive: true });
      await standIn(
        "old-python",
        0,
        `[ "$1" = "-c" ] && exit ${check}\n`,
        `${dir}/${PEERS}/${name}/bin/python`,
      );
    }
    const out = await childCommand(BASH, {
      args: [SCRIPT],
      env: { PATH: bin, HOME: dir },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const log = (await Deno.readTextFile(`${dir}/log`).catch(() => "")).split("\n");
    return {
      code: out.code,
      stderr: new TextDecoder().decode(out.stderr),
      apt: log.filter((l) => l.startsWith("apt-get ")),
      npx: log.filter((l) => l.startsWith("npx ")),
      python: log.filter((l) =>
        l.startsWith("python3 ") || l.startsWith("venv-python ") || l.startsWith("old-python ")
      ),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test(".ci/run: apt-get failing to install the test tools ends the run with exit 1", async () => {
  const r = await ciRun(100);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /could not install openssl dnsmasq-base bsdutils zip unzip xz-utils openssh-client python3 python3-venv \(apt-get failed\)/,
  );
  assert.deepEqual(r.npx, [], "the suite must not start");
  assert.equal(r.apt.length, 1); // update failed: install not tried
  // One tool missing, the same.
  const one = await ciRun(
    100,
    ["openssl", "script", "zip", "unzip", "xz", "ssh-agent", "ssh-add", "ssh-keygen"],
    { pipExit: 0 },
  );
  assert.equal(one.code, 1);
  assert.match(one.stderr, /could not install dnsmasq-base \(apt-get/);
  assert.deepEqual(one.npx, []);
  // openssh-client is installed when any one of its three programs is missing.
  const ssh = await ciRun(
    100,
    ["openssl", "dnsmasq", "script", "zip", "unzip", "xz", "ssh-agent", "ssh-keygen"],
    { pipExit: 0 },
  );
  assert.equal(ssh.code, 1);
  assert.match(ssh.stderr, /could not install openssh-client \(apt-get/);
});

Deno.test(".ci/run: a good install goes on to the suite with CI=true; present tools are not installed", async () => {
  const r = await ciRun(0, [], { pipExit: 0 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.apt.at(-1)!,
    /install -y -q --no-install-recommends openssl dnsmasq-base bsdutils zip unzip xz-utils openssh-client$/,
  );
  assert.deepEqual(r.npx.map((l) => l.replace(/deno@\S+/, "deno@V")), [
    "npx CI=true -y deno@V --version",
    // Node 22 and Bun for tests/node/library_node_test.ts
    "npx CI=true -y node@22 -p process.execPath",
    "npx CI=true -y bun@1.2.19 -e console.log(process.execPath)",
    // the MCP conformance suite for tests/peers/conformance_test.ts
    "npx CI=true -y -p @modelcontextprotocol/conformance@0.1.16 -c command -v conformance",
    "npx CI=true -y deno@V task ci",
    // the README's two commands again, from an empty Deno cache (issue 26)
    "npx CI=true -y deno@V task demo",
    "npx CI=true -y deno@V task test tests/cli/footprint_test.ts tests/cli/compile_test.ts " +
    "tests/cli/demo_test.ts",
  ]);
  // The Python MCP SDK for tests/peers/python_sdk_test.ts, in a venv outside the checkout.
  assert.ok(
    r.python.some((l) =>
      /^python3 CI=true -m venv \S+\/\.cache\/schemapin-ci\/python-mcp-2\.3\.0$/.test(l)
    ),
    r.python.join("\n"),
  );
  assert.ok(
    r.python.some((l) =>
      l.startsWith("venv-python CI=true -m pip install -q --retries 0") && l.endsWith(" mcp==2.3.0")
    ),
    r.python.join("\n"),
  );
  // FastMCP 4 for tests/peers/skills_fixtures_test.ts, in a venv of its own beside it.
  assert.ok(
    r.python.some((l) =>
      /^python3 CI=true -m venv \S+\/\.cache\/schemapin-ci\/fastmcp-4\.0\.10$/.test(l)
    ),
    r.python.join("\n"),
  );
  assert.ok(
    r.python.some((l) =>
      l.startsWith("venv-python CI=true -m pip install -q --retries 0") &&
      l.endsWith(" fastmcp==4.0.10")
    ),
    r.python.join("\n"),
  );
  // Each venv was checked for its version after the install.
  assert.ok(
    r.python.some((l) => /^venv-python CI=true -c .*m\.version\('fastmcp'\) != '4\.0\.10'/.test(l)),
    r.python.join("\n"),
  );
  const all = await ciRun(
    100,
    ["openssl", "dnsmasq", "script", "zip", "unzip", "xz", "ssh-agent", "ssh-add", "ssh-keygen"],
    { pipExit: 0 },
  );
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.apt, []);
  assert.equal(all.npx.length, 7);
});

Deno.test(".ci/run: the Python MCP SDK failing to install ends the run with exit 1, naming it", async () => {
  const r = await ciRun(0, [], { pipExit: 1 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /could not install the Python MCP SDK \(pip install mcp==2\.3\.0 into /);
  assert.ok(!r.npx.some((l) => l.includes("task ci")), "the suite must not start");
});

Deno.test(".ci/run: FastMCP failing to install ends the run with exit 1, naming it", async () => {
  const r = await ciRun(0, [], { pipExit: 0, fastmcpPipExit: 1 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /could not install FastMCP \(pip install fastmcp==4\.0\.10 into \S+\/\.cache\/schemapin-ci\/fastmcp-4\.0\.10\)/,
  );
  assert.doesNotMatch(r.stderr, /Python MCP SDK/, "the mcp venv installed");
  assert.ok(!r.npx.some((l) => l.includes("task ci")), "the suite must not start");
});

Deno.test(".ci/run: peer venvs of the right version are kept, one of another version is made again", async () => {
  // Both venvs there and right: their versions are checked, no venv is made, nothing installed.
  const kept = await ciRun(0, [], { pipExit: 0 }, {
    "python-mcp-2.3.0": 0,
    "fastmcp-4.0.10": 0,
  });
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(kept.python.filter((l) => / -m (venv|pip) /.test(l)), [], "nothing installed");
  assert.equal(
    kept.python.filter((l) => l.startsWith("old-python CI=true -c ")).length,
    2,
    kept.python.join("\n"),
  );
  // The FastMCP venv holds another version: it alone is made again and installed into.
  const stale = await ciRun(0, [], { pipExit: 0 }, {
    "python-mcp-2.3.0": 0,
    "fastmcp-4.0.10": 1,
  });
  assert.equal(stale.code, 0, stale.stderr);
  const made = stale.python.filter((l) => l.startsWith("python3 CI=true -m venv "));
  assert.equal(made.length, 1, stale.python.join("\n"));
  assert.match(made[0], /\/fastmcp-4\.0\.10$/);
  assert.ok(
    stale.python.some((l) =>
      l.startsWith("venv-python CI=true -m pip install") && l.endsWith(" fastmcp==4.0.10")
    ),
    stale.python.join("\n"),
  );
  assert.ok(!stale.python.some((l) => l.endsWith(" mcp==2.3.0")), "the mcp venv is kept");
});
