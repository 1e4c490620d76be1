import assert from "node:assert/strict";
import {
  addPinIfAbsent,
  checkToolId,
  FilePinStore,
  makePinRecord,
  MemoryPinStore,
  parsePinKey,
  type PinStore,
  removePin,
  rotatePin,
  seedPin,
} from "../../lib/pins/store.ts";
import { importPins } from "../../cli/pins/pin_export.ts";
import { schemapinHome } from "../../lib/pins/json_file.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { tempDir } from "../schema/_fixtures.ts";
import { childCommand } from "../process.ts";

const FP = (c: string) => "sha256:" + c.repeat(64);
const rec = (toolId: string, fp = FP("a"), domain = "example.com") =>
  makePinRecord({
    toolId,
    domain,
    fingerprint: fp,
    source: "first_use",
    pinnedAt: "2026-05-01T10:00:00Z",
  });

async function eachStore(fn: (store: PinStore, label: string) => Promise<void>) {
  await fn(new MemoryPinStore(), "memory");
  const { dir, cleanup } = await tempDir();
  try {
    await fn(new FilePinStore(`${dir}/sub/pins.json`), "file");
  } finally {
    await cleanup();
  }
}

Deno.test("addPinIfAbsent pins once and never overwrites", async () => {
  await eachStore(async (store) => {
    assert.equal(await store.get("calc", "example.com"), undefined);
    assert.equal((await addPinIfAbsent(store, rec("calc"))).status, "added");
    const again = await addPinIfAbsent(store, rec("calc", FP("b")));
    assert.equal(again.status, "exists");
    assert.equal(again.record.fingerprint, FP("a"));
    assert.equal((await store.get("calc", "example.com"))?.fingerprint, FP("a"));
  });
});

Deno.test("tool ids such as __proto__ and constructor are ordinary ids", async () => {
  await eachStore(async (store) => {
    for (const id of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"]) {
      assert.equal(await store.get(id, "example.com"), undefined, `${id} must not be pinned yet`);
      await addPinIfAbsent(store, rec(id, FP("c")));
      assert.equal((await store.get(id, "example.com"))?.fingerprint, FP("c"));
    }
    assert.equal((await store.list()).length, 5);
    assert.equal(({} as Record<string, unknown>).fingerprint, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "fingerprint"), false);
  });
});

Deno.test("seedPin, rotatePin, removePin and importPins", async () => {
  await eachStore(async (store) => {
    assert.equal((await seedPin(store, "t", "Example.com", FP("a"))).status, "added");
    assert.equal((await store.get("t", "example.com"))?.source, "seeded");
    assert.equal((await seedPin(store, "t", "example.com", FP("a"))).status, "exists");
    await assert.rejects(
      () => seedPin(store, "t", "example.com", FP("b")),
      (e) => isSchemaPinError(e, "KEY_PIN_MISMATCH"),
    );
    await assert.rejects(
      () => rotatePin(store, "nope", "example.com", FP("b")),
      (e) => isSchemaPinError(e, "KEY_NOT_FOUND"),
    );
    const prev = await rotatePin(store, "t", "example.com", FP("b"));
    assert.equal(prev.fingerprint, FP("a"));
    const now = await store.get("t", "example.com");
    assert.equal(now?.fingerprint, FP("b"));
    assert.equal(now?.source, "rotated");
    const conflict = await importPins(store, [rec("t", FP("c")), rec("u")]);
    assert.deepEqual(conflict, {
      added: ["u@example.com"],
      unchanged: [],
      conflicts: ["t@example.com"],
      written: false,
    });
    assert.equal(
      await store.get("u", "example.com"),
      undefined,
      "a conflicting import writes nothing",
    );
    const forced = await importPins(store, [rec("t", FP("c")), rec("u")], { overwrite: true });
    assert.equal(forced.written, true);
    assert.equal((await store.get("t", "example.com"))?.fingerprint, FP("c"));
    assert.equal((await store.get("u", "example.com"))?.source, "imported");
    await assert.rejects(
      () => importPins(store, [rec("v"), rec("v")]),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
    assert.equal(await removePin(store, "t", "example.com"), true);
    assert.equal(await removePin(store, "t", "example.com"), false);
    assert.equal(await store.get("t", "example.com"), undefined);
  });
});

Deno.test("pin keys and tool ids are validated", () => {
  assert.deepEqual(parsePinKey("a@b@Example.com"), { toolId: "a@b", domain: "example.com" });
  for (
    const bad of [
      "calc",
      "@example.com",
      "calc@",
      "calc@localhost",
      "calc@http://x.com",
      "\u0001@example.com",
    ]
  ) {
    assert.throws(() => parsePinKey(bad), (e) => isSchemaPinError(e, "INPUT_INVALID"), bad);
  }
  assert.equal(checkToolId("calc"), undefined);
  assert.match(checkToolId("") ?? "", /empty/);
  assert.match(checkToolId("a\nb") ?? "", /control/);
  assert.match(checkToolId("x".repeat(513)) ?? "", /longer/);
  assert.match(checkToolId("\ud800") ?? "", /surrogate/);
  assert.match(checkToolId(5) ?? "", /not a string/);
  assert.throws(() =>
    makePinRecord({
      toolId: "t",
      domain: "example.com",
      fingerprint: "sha256:AB",
      source: "seeded",
    })
  );
  assert.throws(() =>
    makePinRecord({ toolId: "t", domain: "x", fingerprint: FP("a"), source: "seeded" })
  );
});

Deno.test("the pin file has the documented format and no leftovers", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/pins.json`;
    const store = new FilePinStore(path);
    await addPinIfAbsent(store, rec("zeta"));
    await addPinIfAbsent(
      store,
      makePinRecord({
        toolId: "alpha",
        domain: "example.com",
        fingerprint: FP("b"),
        source: "confirmed",
        developerName: "Dev",
        pinnedAt: "2026-05-01T10:00:00Z",
      }),
    );
    const value = parseJson(await Deno.readFile(path)) as Record<string, unknown>;
    assert.deepEqual(value, {
      schemapin_pins_version: 1,
      pins: [
        {
          tool_id: "alpha",
          domain: "example.com",
          fingerprint: FP("b"),
          pinned_at: "2026-05-01T10:00:00Z",
          source: "confirmed",
          developer_name: "Dev",
        },
        {
          tool_id: "zeta",
          domain: "example.com",
          fingerprint: FP("a"),
          pinned_at: "2026-05-01T10:00:00Z",
          source: "first_use",
        },
      ],
    });
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["pins.json", "pins.json.lock"], "no temporary files remain");
    // A second handle sees the same pins (persistence).
    assert.equal((await new FilePinStore(path).get("alpha", "example.com"))?.developerName, "Dev");
  } finally {
    await cleanup();
  }
});

Deno.test("a corrupt or foreign pin file is an error and is never overwritten", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const cases: [string, RegExp][] = [
      ['{"pins": [', /not valid JSON/],
      ["", /not valid JSON/],
      ['{"tool@example.com": "sha256:aa"}', /not a schemapin pin store/],
      ['{"schemapin_pins_version": 2, "pins": []}', /not a schemapin pin store/],
      ['{"schemapin_pins_version": 1, "pins": {}}', /must be an array/],
      [
        `{"schemapin_pins_version": 1, "pins": [${
          JSON.stringify({
            tool_id: "t",
            domain: "example.com",
            fingerprint: FP("a"),
            pinned_at: "2026-05-01T10:00:00Z",
            source: "first_use",
          })
        }, ${
          JSON.stringify({
            tool_id: "t",
            domain: "example.com",
            fingerprint: FP("b"),
            pinned_at: "2026-05-01T10:00:00Z",
            source: "first_use",
          })
        }]}`,
        /pinned twice/,
      ],
      [`{"schemapin_pins_version": 1, "pins": [{"tool_id": "t"}]}`, /pins\[0\]/],
      ['{"schemapin_pins_version": 1, "pins": [], "pins": []}', /not valid JSON/],
    ];
    for (const [text, re] of cases) {
      const path = `${dir}/pins.json`;
      await Deno.writeTextFile(path, text);
      const store = new FilePinStore(path);
      await assert.rejects(
        () => store.get("t", "example.com"),
        (e) => isSchemaPinError(e, "INPUT_INVALID") && re.test((e as Error).message),
        text,
      );
      await assert.rejects(
        () => addPinIfAbsent(store, rec("t")),
        (e) => isSchemaPinError(e, "INPUT_INVALID"),
      );
      assert.equal(await Deno.readTextFile(path), text, "left untouched");
    }
  } finally {
    await cleanup();
  }
});

Deno.test("the default pin path honours SCHEMAPIN_HOME, then HOME", () => {
  const saved = { s: Deno.env.get("SCHEMAPIN_HOME"), h: Deno.env.get("HOME") };
  try {
    Deno.env.set("SCHEMAPIN_HOME", "/tmp/sp-home/");
    assert.equal(schemapinHome(), "/tmp/sp-home");
    assert.equal(new FilePinStore().path, "/tmp/sp-home/pins.json");
    Deno.env.delete("SCHEMAPIN_HOME");
    Deno.env.set("HOME", "/home/someone");
    assert.equal(new FilePinStore().path, "/home/someone/.schemapin/pins.json");
    Deno.env.delete("HOME");
    assert.throws(() => new FilePinStore(), (e) => isSchemaPinError(e, "INPUT_INVALID"));
  } finally {
    if (saved.s === undefined) Deno.env.delete("SCHEMAPIN_HOME");
    else Deno.env.set("SCHEMAPIN_HOME", saved.s);
    if (saved.h !== undefined) Deno.env.set("HOME", saved.h);
  }
});

Deno.test("concurrent writers in separate processes lose no pin (file lock)", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/pins.json`;
    const worker = new URL("./_pin_worker.ts", import.meta.url).pathname;
    const processes = 8;
    const each = 15;
    const children = Array.from({ length: processes }, (_, p) =>
      childCommand(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          worker,
          path,
          `p${p}`,
          String(each),
          FP("a"),
        ],
        cwd: new URL("../../", import.meta.url).pathname,
        stdout: "piped",
        stderr: "piped",
      }).output());
    const outputs = await Promise.all(children);
    for (const o of outputs) assert.equal(o.code, 0, new TextDecoder().decode(o.stderr));
    const pins = await new FilePinStore(path).list();
    assert.equal(pins.length, processes * each);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["pins.json", "pins.json.lock"]);
  } finally {
    await cleanup();
  }
});

Deno.test("a file store sees changes made by other handles and processes (no stale cache)", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/pins.json`;
    const reader = new FilePinStore(path);
    const writer = new FilePinStore(path);
    assert.equal(await reader.get("t", "example.com"), undefined);
    await addPinIfAbsent(writer, rec("t"));
    assert.equal((await reader.get("t", "example.com"))?.fingerprint, FP("a"));
    await rotatePin(writer, "t", "example.com", FP("b"));
    assert.equal((await reader.get("t", "example.com"))?.fingerprint, FP("b"));
    await removePin(writer, "t", "example.com");
    assert.equal(await reader.get("t", "example.com"), undefined);
    // Same-size rewrite by hand, in place.
    await addPinIfAbsent(writer, rec("t", FP("c")));
    const text = await Deno.readTextFile(path);
    assert.equal((await reader.get("t", "example.com"))?.fingerprint, FP("c"));
    await Deno.writeTextFile(path, text.replace(FP("c"), FP("d")));
    assert.equal((await reader.get("t", "example.com"))?.fingerprint, FP("d"));
  } finally {
    await cleanup();
  }
});
