/**
 * Which requests are expensive for this server's store, so that they need one of the few expensive admission turns
 * (MAX_EXPENSIVE_IN_FLIGHT): what each input costs is declared with it (contract/model/inputs/): a substring filter
 * reads an index's posting lists and rows by the thousand, and a page that starts `deepOffset` rows in or further skips
 * them one by one.
 */
import { costOf as declaredCost } from "@novu-query/contract/model";
import type { Cost, HandlerInput, OperationId } from "@novu-query/express";

export function costOf<K extends OperationId>(id: K, input: HandlerInput<K>, deepOffset: number): Cost {
  return declaredCost(id, input.query as Record<string, unknown>, deepOffset);
}
