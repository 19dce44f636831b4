/**
 * The reference server from code, e.g. to start it inside another project's test run; the command is
 * `novu-query-server`.
 */
export { type Config, loadConfig } from "./config.js";
export { runServer } from "./main.js";
