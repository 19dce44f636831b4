/**
 * The reference server from code, e.g. to start it inside another project's test run; the command is
 * `novu-query-server`. A started server writes one JSON ready line (`readyLineIn` reads it from its output).
 */
export { type Config, loadConfig } from "./config.js";
export { type ReadyLine, readyLineIn, runServer, StartRefused } from "./main.js";
