/**
 * docs/backend.md's part of each operation: per input, what it means, what the skeleton's pipeline has done with it
 * before a handler runs, and what the handler must still do (with the model's function for it), rendered from the
 * inputs' declarations (contract/model/inputs/).
 */
import { declaredInputs, inputs } from "@novu-query/contract/model";
import { operationIds, operationTable } from "@novu-query/contract/operations";
import type { GeneratedSection } from "./generated-section.js";

type Kind = "filter" | "subscriber-filter" | "page" | "order" | "cursor" | "window" | "id" | "field";

/** What a handler does with an input of each kind, and the model function that does it over arrays. */
const handlerPart: Record<Kind, string> = {
  filter: "keep the rows it matches, ANDed with the other filters (`passesFilters`)",
  "subscriber-filter":
    "resolve it to this environment's live subscribers, ORed with the other subscriber filters, and keep their notifications (`resolveSubscriberFilters`)",
  page: "cut the page (the model's operation function)",
  order: "order the rows, `_id` breaking ties (`compareSubscribers`)",
  cursor:
    "walk from the place the cursor marks (`readSubscriberCursor`, `cursorPosition`): the time it carries in an `updatedAt` order, else its row's; one that names no live subscriber of the environment is an empty page; `next`/`previous` from `subscriberCursorOf`",
  window: "keep the rows whose `createdAt` is within the window, both ends included (`listWindow` gives the instants)",
  id: "find the record in the caller's environment; 404 when there is none",
  field: "replace the stored value; `null` clears it, an equal value changes nothing (`patchChanges`)",
};

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function pipelinePart(input: { normalise?: unknown; refuse?: unknown }, hasDefault: boolean): string {
  const parts = ["validated against the spec"];
  if (hasDefault) parts.push("its default filled in");
  if (input.normalise) parts.push("normalised (a date-time to UTC with milliseconds: `new Date()` reads it)");
  if (input.refuse) parts.push("refused with 422 when the contract refuses it without data");
  return parts.join("; ");
}

export function renderInputsTable(): string {
  const sections: string[] = [];
  for (const id of operationIds) {
    const { method, path, queryDefaults } = operationTable[id];
    const heading = `#### ${method.toUpperCase()} ${path} (${code(id)})`;
    if (!(id in inputs)) {
      sections.push(heading, "", "No declarations yet: every input is validated against the spec, nothing more.");
      continue;
    }
    const rows = declaredInputs(id as keyof typeof inputs).map(([place, name, input]) => {
      const hasDefault = place === "query" && name in queryDefaults;
      return `| ${code(`${place}.${name}`)} | ${cell(input.meaning)} | ${pipelinePart(input, hasDefault)} | ${handlerPart[input.kind as Kind]} |`;
    });
    const refusals = (inputs[id as keyof typeof inputs].refusals as unknown[]).length;
    sections.push(
      heading,
      "",
      "| Input | Meaning | The pipeline has | Your handler must |",
      "|---|---|---|---|",
      ...rows,
      ...(refusals > 0
        ? [
            "",
            `The pipeline also makes the operation's refusals over several inputs (${refusals}), before your handler runs: ${refusalWords[id] ?? "see contract/model/inputs/"}.`,
          ]
        : []),
      "",
    );
  }
  return sections.join("\n").trimEnd();
}

/** The operations' refusals over several inputs, in words. */
const refusalWords: Record<string, string> = {
  searchSubscribers: "both cursors (400, Novu's message)",
  listNotifications:
    "`after` later than `before` (400), and a window that starts before the caller's retention (402, given `retentionOf`)",
};

export const inputsTable: GeneratedSection = {
  doc: "docs/backend.md",
  name: "inputs",
  source: "contract/model/inputs/",
  render: renderInputsTable,
};
