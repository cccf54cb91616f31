import { readFileSync } from "node:fs";
import { parseTomlDocument } from "./server/src/core/parse/toml";
import { inferVersion } from "./server/src/core/workspace";
import { NO_ENV } from "./server/src/core/analysis";
for (const f of process.argv.slice(2)) {
  const v = inferVersion(parseTomlDocument("file:///x.toml", readFileSync(f, "utf8")), NO_ENV);
  console.log(f.split("/").pop(), v.value, "|", v.detail, "|", v.decidedBy);
}
