/**
 * A query parameter a maintainer might add, `tags` on GET /v1/notifications (a notification matches when it carries
 * any of them), written as docs/contract.md's "Changing the contract" says, file by file: the spec (a parameter file
 * and its reference), its declaration, its SQL, and the CHANGELOG. Used by add-parameter.test.ts.
 */

/** A new file, openapi/components/parameters/ListTags.yaml. */
export const tagsParameter = `name: tags
in: query
required: false
description: Return notifications that carry any of these tags. Repeat the key for several (\`tags=billing&tags=security\`).
style: form
explode: true
schema:
  type: array
  maxItems: 20
  items:
    type: string
    minLength: 1
    maxLength: 100
example:
  - billing
`;

/** Added to the parameters of openapi/paths/v1_notifications.yaml, among the others (not at the end). */
export const tagsReference = "    - $ref: ../components/parameters/ListTags.yaml\n";

/** Added to the query declarations of contract/model/inputs/list-notifications.ts. */
export const tagsDeclaration = `    tags: {
      kind: "filter",
      meaning: "Notifications that carry any of these tags (their workflow's).",
      cost: "cheap",
      matches: (notification: Notification, wanted: string[]) =>
        (notification.tags ?? []).some((tag) => wanted.includes(tag)),
      samples: (data: ModelData, random: Random) => [
        ...lists(distinct(data.notifications.flatMap((n) => n.tags ?? [])), random),
        ["no-such-tag"],
      ],
      variants: (tags: string[]) => [tags.map((tag) => tag.toUpperCase())],
    },
`;

/** Added to filterSql in server/store/notifications.ts. */
export const tagsSql =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: this is source text written into the copied repository
  "  tags: (_eb, tags) => sql<SqlBool>`coalesce(n.details, (n.answer || '}')::jsonb) -> 'tags' ?| ${tags}::text[]`,\n";

/** Added under the unreleased version's Contract heading of CHANGELOG.md. */
export const tagsChangelog =
  "- **Breaking** for implementations, GET /v1/notifications: the query parameter `tags` (any of a notification's\n" +
  "  tags); clients meet nothing new.\n";
