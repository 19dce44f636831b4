/**
 * What `createClient({ validateAnswers })` costs a client (`npm run bench:answers`): the time to check one answer
 * against its zod schema, beside the JSON.parse of the same text that every answer costs anyway, for each operation
 * at the page size most screens use (10) and the largest (100 subscribers, 50 notifications). Side by side in one
 * run, as ratios; writes bench/ANSWER-VALIDATION.md.
 */
import { writeFileSync } from "node:fs";
import { makeNotification, makeNotifications, makeSubscriber, makeSubscribers } from "../contract/factories.js";
import { validateAnswers } from "../contract/validate-answers.js";

type Case = { name: string; operationId: Parameters<typeof validateAnswers.check>[0]; body: unknown };

const cases: Case[] = [
  { name: "getNotification", operationId: "getNotification", body: makeNotification() },
  { name: "patchSubscriber", operationId: "patchSubscriber", body: makeSubscriber() },
  ...[10, 100].map((size) => ({
    name: `searchSubscribers, ${size} a page`,
    operationId: "searchSubscribers" as const,
    body: { data: makeSubscribers(size), next: null, previous: null, totalCount: size, totalCountCapped: false },
  })),
  ...[10, 50].map((size) => ({
    name: `listNotifications, ${size} a page`,
    operationId: "listNotifications" as const,
    body: { data: makeNotifications(size), hasMore: false, page: 0, pageSize: size },
  })),
];

/** Median microseconds of `work` over 9 rounds of enough calls to take about 100 ms. */
function measure(work: () => void): number {
  let calls = 1;
  while (true) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) work();
    if (performance.now() - start > 20) break;
    calls *= 2;
  }
  calls *= 5;
  const rounds: number[] = [];
  for (let round = 0; round < 9; round++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) work();
    rounds.push(((performance.now() - start) * 1000) / calls);
  }
  return rounds.sort((a, b) => a - b)[4] as number;
}

const rows: string[] = [];
for (const { name, operationId, body } of cases) {
  const text = JSON.stringify(body);
  if (validateAnswers.check(operationId, JSON.parse(text)).length > 0)
    throw new Error(`${name}: the factories' answer is refused`);
  const parse = measure(() => JSON.parse(text));
  const validate = measure(() => validateAnswers.check(operationId, JSON.parse(text)));
  const check = validate - parse;
  rows.push(
    `| ${name} | ${(text.length / 1024).toFixed(1)} kB | ${parse.toFixed(1)} | ${check.toFixed(1)} | ${(check / parse).toFixed(2)}× |`,
  );
}
const report = `# What validating answers costs

\`npm run bench:answers\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}: one answer's check against its zod
schema (\`createClient({ validateAnswers })\`), beside the \`JSON.parse\` of the same text that every answer costs with or
without it. Medians of 9 rounds; the factories' data (\`@novu-query/contract/factories\`).

| Answer | Size | JSON.parse (µs) | Validation (µs) | Validation / parse |
|---|---|---|---|---|
${rows.join("\n")}
`;
writeFileSync(new URL("./ANSWER-VALIDATION.md", import.meta.url), report);
console.log(report);
