/** The settings table of docs/server.md, rendered from the settings' declarations (server/config.ts). */
import { settings } from "../server/config.js";
import type { GeneratedSection } from "./generated-section.js";

export const settingsTable: GeneratedSection = {
  doc: "docs/server.md",
  name: "settings",
  source: "server/config.ts",
  render() {
    const rows = Object.values(settings).map(
      (setting) => `| \`${setting.variable}\` | ${setting.shown} | ${setting.meaning.replaceAll("|", "\\|")} |`,
    );
    return ["| Variable | Default | Meaning |", "|---|---|---|", ...rows].join("\n");
  },
};
