/** The inputs of GET /v1/notifications/{notificationId} (getNotification), declared once: see kinds.ts. */
import type { Random } from "../random.js";
import type { ModelData, OperationInputs } from "./kinds.js";

export const getNotificationInputs = {
  query: {},
  path: {
    notificationId: {
      kind: "id",
      meaning: "The notification, by its `_id`.",
      cost: "cheap",
      samples: (data: ModelData, random: Random) => [
        ...random.sample(data.notifications, 2).map((n) => n._id),
        "ffffffffffffffffffffffff",
      ],
    },
  },
  body: {},
  refusals: [],
} satisfies OperationInputs<"getNotification">;
