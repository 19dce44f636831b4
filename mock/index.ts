/** Start the static Prism mock or the validating proxy from code (tests, scripts); the command is `novu-query-mock`. */
export { type PrismProcess, specFile, startMock, startPrism, startProxy } from "./prism.js";
