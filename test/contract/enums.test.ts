import * as sdk from "@novu/api/models/components/index.js";
import { describe, expect, it } from "vitest";
import { type JsonObject, spec } from "../support/spec.js";

const schemas = (spec.components as JsonObject).schemas as Record<string, JsonObject>;

function enumAt(schema: string, property?: string): unknown[] {
  const node = schemas[schema];
  if (!node) throw new Error(`no schema ${schema} in the spec`);
  const target = property ? ((node.properties as JsonObject)[property] as JsonObject) : node;
  return (target.enum as unknown[]) ?? [];
}

// The official SDK parses responses with closed enums: a value outside these sets breaks its callers.
const pairs: [string, unknown[], Record<string, string>][] = [
  ["JobType", enumAt("JobType"), sdk.ActivityNotificationJobResponseDtoType],
  ["SeverityLevel", enumAt("SeverityLevel"), sdk.SeverityLevelEnum],
  ["ExecutionDetailStatus", enumAt("ExecutionDetailStatus"), sdk.ExecutionDetailsStatusEnum],
  ["ExecutionDetailSource", enumAt("ExecutionDetailSource"), sdk.ExecutionDetailsSourceEnum],
  ["DigestType", enumAt("DigestType"), sdk.DigestTypeEnum],
  ["DigestUnit", enumAt("DigestUnit"), sdk.DigestUnitEnum],
  ["WeekDay", enumAt("WeekDay"), sdk.DigestTimedConfigDtoWeekDays],
  ["Ordinal", enumAt("Ordinal"), sdk.OrdinalEnum],
  ["OrdinalValue", enumAt("OrdinalValue"), sdk.OrdinalValueEnum],
  ["MonthlyType", enumAt("MonthlyType"), sdk.MonthlyTypeEnum],
  ["FilterType", enumAt("FilterType"), sdk.BuilderFieldTypeEnum],
  ["FilterOperator", enumAt("FilterOperator"), sdk.Operator],
  ["FilterCondition.on", enumAt("FilterCondition", "on"), sdk.On],
  ["StepFilter.value", enumAt("StepFilter", "value"), sdk.StepFilterDtoValue],
  ["ResourceOrigin", enumAt("ResourceOrigin"), sdk.ResourceOriginEnum],
  ["NotificationTrigger.type", enumAt("NotificationTrigger", "type"), sdk.NotificationTriggerDtoType],
  ["ChatOrPushProviderId", enumAt("ChatOrPushProviderId"), sdk.ChatOrPushProviderEnum],
  ["ProviderId", enumAt("ProviderId"), sdk.ProvidersIdEnum],
];

describe("enums in the spec", () => {
  it.each(pairs)("%s has exactly the values of the Novu SDK's enum", (_name, ours, theirs) => {
    expect(ours.length).toBeGreaterThan(0);
    expect([...ours].sort()).toEqual(Object.values(theirs).sort());
  });

  it("ChannelType is the five delivery channels, all known to the SDK's ChannelTypeEnum (which adds `tool`)", () => {
    expect(Object.values(sdk.ChannelTypeEnum)).toEqual(expect.arrayContaining(enumAt("ChannelType")));
    expect(enumAt("ChannelType")).not.toContain("tool");
  });

  it("include every value the contract notes list (docs/decisions.md D1)", () => {
    expect(enumAt("ChannelType")).toEqual(["in_app", "email", "sms", "chat", "push"]);
    expect(enumAt("SeverityLevel")).toEqual(["high", "medium", "low", "none"]);
    expect(enumAt("JobType")).toEqual(
      expect.arrayContaining(["tool", "digest", "trigger", "delay", "throttle", "custom", "http_request"]),
    );
    expect(enumAt("ExecutionDetailStatus")).toEqual([
      "Success",
      "Warning",
      "Failed",
      "Pending",
      "Queued",
      "ReadConfirmation",
    ]);
    expect(enumAt("ExecutionDetailSource")).toEqual(["Credentials", "Internal", "Payload", "Webhook"]);
    expect(enumAt("Ordinal")).toEqual(["1", "2", "3", "4", "5", "last"]);
    expect(enumAt("MonthlyType")).toEqual(["each", "on"]);
    expect(enumAt("ResourceOrigin")).toEqual(["novu-cloud", "novu-cloud-v1", "external"]);
    expect(enumAt("ChatOrPushProviderId")).toEqual(
      expect.arrayContaining(["slack", "discord", "msteams", "mattermost", "telegram", "whatsapp-business", "fcm"]),
    );
  });
});
