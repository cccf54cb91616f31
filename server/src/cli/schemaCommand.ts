/** `precision-lens schema`: the JSON Schema of a torchtitan release. */
import { torchtitanJsonSchemaText } from "../core/features/jsonSchema";
import { FIRST_MAIN_DATE, LAST_TOML_DATE, parseVersion } from "../core/frameworks/torchtitan/versions";
import type { CliIO } from "./io";
import { USAGE, UsageError } from "./usage";

export function schema(args: string[], io: CliIO): number {
  let v = "v0.2.2";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--help" || a === "-h") {
      io.stdout(USAGE);
      return 0;
    }
    if (a === "--torchtitan-version") v = args[++i] ?? "";
    else if (a.startsWith("--torchtitan-version=")) v = a.slice("--torchtitan-version=".length);
    else throw new UsageError(`schema: unexpected argument "${a}"`);
  }
  const version = parseVersion(v);
  if (!version) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use v0.1.0, v0.2.0, v0.2.1, v0.2.2 or main@YYYY-MM-DD, a real date from ${FIRST_MAIN_DATE} to ${LAST_TOML_DATE})`);
  io.stdout(torchtitanJsonSchemaText(version.schemaRelease));
  return 0;
}
