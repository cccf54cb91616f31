/**
 * Everything a torchtune rule reads, computed once per document version: the recipe and launch from the
 * header comment, the parallel dims, the world size and the `dtype` as torchtune will read it.
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { View } from "../common/view";
import { DTYPES } from "./data";

export interface Launch {
  recipe?: string;
  nproc?: number;
  nnodes?: number;
  line?: number;
}

export interface TorchtuneContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  launch: Launch;
  fileName: string;
  /** An optimizer or a loss: a training recipe (not generation / evaluation / quantization). */
  training: boolean;
  recipe: string;
  modelComp: string;
  isLora: boolean;
  singleDevice: boolean;
  tpDim: number;
  cpDim: number;
  repDim: number;
  shardDim: number;
  cpuOffload: boolean;
  distributed: boolean;
  worldSize: Sourced<number> | undefined;
  dtypeEntry: ConfigEntry | undefined;
  /** The `dtype` as written when torchtune accepts it (undefined when absent or invalid). */
  dtypeName: string | undefined;
  /** The `dtype` as written, valid or not. */
  dtypeWritten: string | undefined;
  /** The `dtype` stops the launch (fp16-training-rejected in training, unknown-dtype): the mechanism is `error`. */
  broken: boolean;
}

/** `tune run [--nnodes N] [--nproc_per_node M] <recipe> --config ...` in the header comment. */
function launchFromComments(doc: ConfigDocument): Launch {
  for (const c of doc.comments) {
    const m = /tune\s+run\s/.exec(c.text);
    if (!m) continue;
    const args = c.text.slice(m.index + m[0].length).trimStart().split(/\s+/);
    const l: Launch = { line: c.line };
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const eq = /^--(nproc_per_node|nnodes)(?:=(\d+))?$/.exec(a);
      if (eq) {
        const n = Number(eq[2] ?? args[++i]);
        if (eq[1] === "nproc_per_node") l.nproc = n;
        else l.nnodes = n;
      } else if (!a.startsWith("-") && !l.recipe) l.recipe = a;
    }
    return l;
  }
  return {};
}

export function torchtuneContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): TorchtuneContext {
  const v = new View(doc);
  const launch = launchFromComments(doc);
  const fileName = (env.documentPath ?? doc.uri).split(/[\\/]/).pop() ?? "";
  const training = v.has("optimizer") || v.has("loss");
  const recipe = launch.recipe ?? "";
  const modelComp = v.str("model", "_component_") ?? "";
  const isLora = /(^|\.)(q?lora|dora)_/.test(modelComp) || /lora/.test(recipe);
  const singleDevice = recipe ? /single_device/.test(recipe) : /single_device/.test(fileName);
  const tpDim = v.int("tensor_parallel_dim") ?? 1;
  const cpDim = v.int("context_parallel_dim") ?? 1;
  const repDim = v.int("data_parallel_replicate_dim") ?? 1;
  const shardDim = v.int("data_parallel_shard_dim") ?? -1;
  const cpuOffload = v.bool("fsdp_cpu_offload") === true;
  const distributedKeys = ["tensor_parallel_dim", "data_parallel_shard_dim", "data_parallel_replicate_dim", "context_parallel_dim", "fsdp_cpu_offload"].some((k) => v.has(k));
  const distributed = !singleDevice && (distributedKeys || /_multinode/.test(fileName) || /distributed/.test(recipe) || (!recipe && !/single_device/.test(fileName)));

  // World size: setting, then `tune run --nproc_per_node N [--nnodes M]` in the header: the launch command
  // written in the file, so of kind run-script (core/provenance.ts), not a prose comment.
  let worldSize: Sourced<number> | undefined;
  if (settings.worldSize && settings.worldSize > 0) worldSize = { value: settings.worldSize, source: "setting", kind: settings.origin === "cli" ? "cli" : "setting", detail: "from the precisionLens.worldSize setting / --world-size" };
  else if (launch.nproc) worldSize = { value: launch.nproc * (launch.nnodes ?? 1), source: "header-comment", kind: "run-script", detail: `\`tune run --nproc_per_node ${launch.nproc}${launch.nnodes ? ` --nnodes ${launch.nnodes}` : ""}\` in the comment on line ${(launch.line ?? 0) + 1}` };
  else if (singleDevice) worldSize = { value: 1, source: "recipe", kind: "inferred", detail: `a single-device recipe (${recipe || fileName})` };

  // The dtype as torchtune reads it (unknown-dtype: not a dtype name or not a string; fp16-training-rejected: fp16 in training).
  const dtypeEntry = v.entry("dtype");
  const dtypeWritten = v.str("dtype");
  let dtypeName = dtypeWritten;
  let broken = false;
  if (dtypeEntry && dtypeName !== undefined && !(dtypeName in DTYPES)) {
    broken = true;
    dtypeName = undefined;
  } else if (dtypeEntry && dtypeEntry.value.kind !== "string" && dtypeEntry.value.kind !== "null") {
    broken = true;
  }
  if (dtypeName === "fp16" && dtypeEntry && training) broken = true;

  return { doc, settings, env, v, launch, fileName, training, recipe, modelComp, isLora, singleDevice, tpDim, cpDim, repDim, shardDim, cpuOffload, distributed, worldSize, dtypeEntry, dtypeName, dtypeWritten, broken };
}
