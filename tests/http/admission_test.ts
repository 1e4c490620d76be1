// Who gets a slot at the cap (lib/http/admission.ts) and when a request is too slow
// (lib/http/request_progress.ts), without sockets: the idle the longest goes first, then the
// busy request furthest behind the minimum rate, and only then is the newcomer refused; a cap
// lowered by EMFILE holds for a minute; the grace and the rate in numbers.
import assert from "node:assert/strict";
import { Admission, LEARNED_CAP_MS } from "../../lib/http/admission.ts";
import { requestDeficitMs, requestOverdue } from "../../lib/http/request_progress.ts";

/** A fake connection: its name, how far behind it is, and whether it was closed. */
class Fake {
  closed = false;
  constructor(readonly name: string, public behind = 0) {}
  close(): void {
    this.closed = true;
  }
}

function admissionOf(cap: number, now = () => 0): Admission<Fake> {
  return new Admission<Fake>(cap, (c) => c.behind, now);
}

function open(a: Admission<Fake>, ...names: string[]): Fake[] {
  return names.map((n) => {
    assert.ok(a.makeRoom(), `no room for ${n}`);
    const c = new Fake(n);
    a.add(c);
    return c;
  });
}

const names = (a: Admission<Fake>) => [...a.connections()].map((c) => c.name);

Deno.test("admission: below the cap everyone gets a slot; at the cap the idle the longest goes first", () => {
  const a = admissionOf(3);
  const [x, y, z] = open(a, "x", "y", "z");
  a.idle(y);
  a.idle(x);
  a.idle(z);
  a.busy(x); // x is busy again: never closed to make room
  assert.ok(a.makeRoom());
  assert.deepEqual([x.closed, y.closed, z.closed], [false, true, false]);
  assert.deepEqual(names(a), ["x", "z"]);
  assert.equal(a.evicted, 1);
  assert.equal(a.idleCount, 1);
  // An idle connection that was counted out is not counted in again.
  a.idle(y);
  assert.equal(a.idleCount, 1);
});

Deno.test("admission: with none idle, the request furthest behind the minimum rate gives its slot; with none behind the newcomer is refused", () => {
  const a = admissionOf(3);
  const [x, y, z] = open(a, "x", "y", "z");
  x.behind = 200;
  y.behind = 900;
  z.behind = -5_000; // ahead of the rate
  assert.ok(a.makeRoom());
  assert.deepEqual([x.closed, y.closed, z.closed], [false, true, false]);
  a.add(new Fake("w"));
  assert.ok(a.makeRoom());
  assert.ok(x.closed);
  a.add(new Fake("v"));
  assert.equal(a.makeRoom(), false, "nobody behind, nobody idle: the newcomer is refused");
  assert.equal(z.closed, false);
  assert.deepEqual(names(a), ["z", "w", "v"]);
  assert.deepEqual([a.evicted, a.refused], [2, 1]);
});

Deno.test("admission: without a measure of progress, busy connections are never closed to make room", () => {
  const a = new Admission<Fake>(1);
  const [x] = open(a, "x");
  x.behind = 1e9;
  assert.equal(a.makeRoom(), false);
  assert.equal(x.closed, false);
  assert.equal(a.refused, 1);
});

Deno.test("admission: EMFILE lowers the cap below the open connections for a minute, closing idle ones above it", () => {
  let now = 1_000_000;
  const a = admissionOf(100, () => now);
  const conns = open(a, ...Array.from({ length: 40 }, (_, i) => `c${i}`));
  for (const c of conns.slice(0, 10)) a.idle(c);
  const lowered = a.lowerCap();
  assert.deepEqual(lowered, { cap: 35, evicted: true }); // 40 - max(4, 40/8)
  assert.equal(a.size, 35);
  assert.deepEqual(conns.filter((c) => c.closed).map((c) => c.name), [
    "c0",
    "c1",
    "c2",
    "c3",
    "c4",
  ]);
  assert.equal(a.cap(), 35);
  assert.equal(a.makeRoom(), true, "five idle ones left to close");
  now += LEARNED_CAP_MS;
  assert.equal(a.cap(), 100);
  a.closeAll();
  assert.equal(a.size, 0);
  assert.ok(conns.every((c) => c.closed));
});

Deno.test("request progress: the deadline, then the grace plus one second per minRequestRate bytes", () => {
  const limits = { requestTimeoutMs: 60_000, minRequestRate: 500, requestGraceMs: 10_000 };
  assert.equal(requestOverdue(10_000, 0, limits), undefined);
  assert.equal(requestOverdue(10_001, 0, limits), "slow");
  assert.equal(requestOverdue(12_000, 1_000, limits), undefined); // earned 12 s
  assert.equal(requestOverdue(12_001, 1_000, limits), "slow");
  assert.equal(requestOverdue(59_999, 1e9, limits), undefined);
  assert.equal(requestOverdue(60_000, 1e9, limits), "request");
  // A client dripping one byte every 2 s after a 100-byte head is cut just after the grace.
  const cut = [...Array(60_000).keys()].find((ms) =>
    requestOverdue(ms, 100 + Math.floor(ms / 2000), limits) !== undefined
  );
  assert.equal(cut, 10_211);
  // No minimum: only the deadline.
  const off = { ...limits, minRequestRate: 0 };
  assert.equal(requestOverdue(59_999, 0, off), undefined);
  assert.equal(requestDeficitMs(59_999, 0, off), 0);
  assert.equal(requestDeficitMs(1_000, 100, limits), 800);
  assert.equal(requestDeficitMs(1_000, 1_000, limits), -1_000);
});
