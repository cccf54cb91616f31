import { analyzeDocument } from "./server/src/core/analyze";
const BASE = `# A TP-only Llama 3 8B run on one 8-GPU node (fixture text for issue #14)
[job]
description = "broken-file fixture"

[model]
name = "llama3"
flavor = "8B"

[optimizer]
name = "AdamW"
lr = 3e-4

[training]
local_batch_size = 2
seq_len = 4096
steps = 100

[compile]
enable = false
components = ["model", "loss"]

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8

[activation_checkpoint]
mode = "selective"
`;
const r = analyzeDocument("file:///f/train.toml", BASE);
console.log(r.framework, r.diagnostics.map(d => `${d.range.start.line}:${d.range.start.character}-${d.range.end.character} ${d.severity} ${d.code} ${d.message.slice(0,60)}`));
for (const [a,b] of [["steps = 100","steps = 100 200"],["lr = 3e-4","lr = 3e-4_"],["data_parallel_shard_degree = -1","data_parallel_shard_degree = -"],['components = ["model", "loss"]','components = ["model", "loss"'],['components = ["model", "loss"]','components = ["model",\n  "loss"\n'], ["tensor_parallel_degree = 8", "tensor_parallel_degree = 8a"], ['description = "broken-file fixture"','description = """broken-file fixture'], ["[job]","[[job]"], ["mode = \"selective\"", "mode = \"selective\"\n["]]) {
  const r = analyzeDocument("file:///f/train.toml", BASE.replace(a,b));
  console.log(JSON.stringify(b), r.framework, r.diagnostics.map(d => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.code} ${d.message.slice(0,100)}`));
}
