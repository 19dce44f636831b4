/** The wire messages live with the contract's model, which every implementation and mock answers from. */
export { idempotencyDocsLink, messages } from "@novu-query/contract/model";
