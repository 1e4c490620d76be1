// The notices of a verify report in the CLI's words (cli/contractpin/notice_text.ts): the
// library says what to do in its own terms (lib/contractpin/verify_server.ts), and
// `contract verify` prints, byte for byte, the words it printed before the library stopped
// naming commands (issue 36 item 2).
import assert from "node:assert/strict";
import { noticeInCliWords, reportInCliWords } from "../../cli/contractpin/notice_text.ts";
import {
  PROTOCOL_CHANGED_REMEDY,
  SNAPSHOT_UNAVAILABLE,
} from "../../lib/contractpin/verify_server.ts";
import { finishReport, type ServerReport } from "../../lib/contractpin/report.ts";
import { emptyServerReport } from "../../lib/contractpin/verify_server.ts";

Deno.test("noticeInCliWords: no snapshot names contract approve, as before", () => {
  assert.doesNotMatch(SNAPSHOT_UNAVAILABLE, /schemapin|--/);
  assert.equal(
    noticeInCliWords({ kind: "snapshot_unavailable", message: SNAPSHOT_UNAVAILABLE }).message,
    "no snapshot, so no diffs: review each change with `schemapin contract approve` " +
      "(it shows the changed fields and the added tools)",
  );
});

Deno.test("noticeInCliWords: a protocol change names contract init --force, facts kept", () => {
  const facts = "pinned with MCP 2026-07-28 (modern); the server now speaks 2025-06-18 " +
    "(legacy): a server may serve each protocol era its own list, ";
  assert.equal(
    noticeInCliWords({ kind: "protocol_changed", message: facts + PROTOCOL_CHANGED_REMEDY })
      .message,
    facts + "re-run `schemapin contract init --force` after review to record it",
  );
});

Deno.test("noticeInCliWords: other notices, and unexpected text, are left as they are", () => {
  const listing = { kind: "listing" as const, message: "followed 2 pages" };
  assert.equal(noticeInCliWords(listing), listing);
  const odd = { kind: "snapshot_unavailable" as const, message: "something else" };
  assert.equal(noticeInCliWords(odd), odd);
  const other = { kind: "protocol_changed" as const, message: "pinned with MCP x" };
  assert.equal(noticeInCliWords(other), other);
});

Deno.test("reportInCliWords: every server's notices, in place", () => {
  const s: ServerReport = emptyServerReport("srv", "stdio");
  s.notices = [{ kind: "snapshot_unavailable", message: SNAPSHOT_UNAVAILABLE }];
  const report = reportInCliWords(finishReport("contractpin.lock", false, null, [s]));
  assert.match(report.servers[0].notices[0].message, /`schemapin contract approve`/);
});
