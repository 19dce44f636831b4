/** `--help` for the repository's commands: prints the command's usage and exits 0. */
export function exitWithUsageIfAsked(usage: string, args: readonly string[] = process.argv.slice(2)): void {
  if (!args.includes("--help") && !args.includes("-h")) return;
  process.stdout.write(usage.endsWith("\n") ? usage : `${usage}\n`);
  process.exit(0);
}
