// A separate process for the concurrency tests: pins COUNT tools named PREFIX-i@example.com
// in the file pin store at PATH, one transaction each.
import { addPinIfAbsent, FilePinStore, makePinRecord } from "../../lib/pins/store.ts";

const [path, prefix, count, fingerprint] = Deno.args;
const store = new FilePinStore(path);
for (let i = 0; i < Number(count); i++) {
  await addPinIfAbsent(
    store,
    makePinRecord({
      toolId: `${prefix}-${i}`,
      domain: "example.com",
      fingerprint,
      source: "first_use",
    }),
  );
}
