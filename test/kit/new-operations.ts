/**
 * Two operations a backend team might add, written as the README's "Adding an operation" says: a new method on a
 * path the contract has (Novu's "retrieve a subscriber") and a new path. Used by add-operation.test.ts.
 */

const commonErrors = (badRequest: string, validation: string) => `    '400':
      $ref: ../components/responses/${badRequest}.yaml
    '401':
      $ref: ../components/responses/Unauthorized.yaml
    '404':
      $ref: ../components/responses/SubscriberNotFound.yaml
    '414':
      $ref: ../components/responses/UriTooLong.yaml
    '422':
      $ref: ../components/responses/${validation}.yaml
    '429':
      $ref: ../components/responses/TooManyRequests.yaml
    '500':
      $ref: ../components/responses/InternalServerError.yaml
    '503':
      $ref: ../components/responses/ServiceUnavailable.yaml
`;

/** Prepended to openapi/paths/v2_subscribers_{subscriberId}.yaml: a GET beside the PATCH. */
export const getSubscriberMethod = `get:
  operationId: getSubscriber
  tags:
    - Subscribers
  summary: Retrieve a subscriber
  description: The subscriber with this \`subscriberId\`.
  parameters:
    - $ref: ../components/parameters/SubscriberIdPath.yaml
    - $ref: ../components/parameters/IdempotencyKey.yaml
  responses:
    '200':
      description: The subscriber.
      content:
        application/json:
          schema:
            $ref: ../components/schemas/Subscriber.yaml
          examples:
            SubscriberMayaPatel:
              $ref: ../components/examples/SubscriberMayaPatel.yaml
${commonErrors("GetNotificationBadRequest", "GetNotificationValidationError")}`;

/** A new file, openapi/paths/v2_subscribers_{subscriberId}_notifications.yaml. */
export const subscriberNotificationsPath = `get:
  operationId: listSubscriberNotifications
  tags:
    - Notifications
  summary: List a subscriber's notifications
  description: The notifications sent to the subscriber with this \`subscriberId\`, newest first.
  parameters:
    - $ref: ../components/parameters/SubscriberIdPath.yaml
    - $ref: ../components/parameters/IdempotencyKey.yaml
  responses:
    '200':
      description: One page of the subscriber's notifications.
      content:
        application/json:
          schema:
            $ref: ../components/schemas/ListNotificationsResponse.yaml
          examples:
            ListNotificationsEmpty:
              $ref: ../components/examples/ListNotificationsEmpty.yaml
${commonErrors("GetNotificationBadRequest", "GetNotificationValidationError")}`;

/** Added under `paths:` in openapi/openapi.yaml. */
export const subscriberNotificationsReference = `  /v2/subscribers/{subscriberId}/notifications:
    $ref: paths/v2_subscribers_{subscriberId}_notifications.yaml
`;
