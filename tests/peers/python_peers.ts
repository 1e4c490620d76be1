/**
 * The Python peers the tests run (issue 24, issue 35): the Python MCP SDK 2.x and FastMCP 4, each a
 * python in its own venv that `.ci/run` installs and names in SCHEMAPIN_PYTHON_MCP and
 * SCHEMAPIN_FASTMCP. Only those variables are read, never a venv found in the home folder, so a
 * test runs a peer exactly when it was given one; without it the test is ignored with a note, and
 * fails on CI (tests/required_tool.ts).
 */
import { ignoreWithout } from "../required_tool.ts";

/** The python of a venv with mcp==2.3.0, or "" when SCHEMAPIN_PYTHON_MCP is not set. */
export const PYTHON_MCP: string = Deno.env.get("SCHEMAPIN_PYTHON_MCP") ?? "";

/** The python of a venv with fastmcp==4.0.10, or "" when SCHEMAPIN_FASTMCP is not set. */
export const FASTMCP: string = Deno.env.get("SCHEMAPIN_FASTMCP") ?? "";

/** `ignore` of a test that needs the Python MCP SDK. */
export const noPython: boolean = ignoreWithout(
  "the Python MCP SDK (SCHEMAPIN_PYTHON_MCP)",
  PYTHON_MCP !== "",
  ".ci/run (a venv with mcp==2.3.0)",
);

/** `ignore` of a test that needs FastMCP 4. */
export const noFastmcp: boolean = ignoreWithout(
  "FastMCP 4 (SCHEMAPIN_FASTMCP)",
  FASTMCP !== "",
  ".ci/run (a venv with fastmcp==4.0.10)",
);
