/**
 * Moved to lib/http/line_log.ts (the bounded log of the servers); re-exported for `serve` and
 * `guard`, which import it here.
 *
 * @module
 */
export { LineLog, type LineLogOptions } from "../http/line_log.ts";
