import { analyzeDocument } from "../server/src/core/analyze";
import { fakeEnv } from "./support/fakeEnv";
const TRL = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\n";
const DOC = "/w/recipes/sft.yaml";
const TORCHRUN = "torchrun --nproc_per_node 4 train.py recipes/sft.yaml\n";
const show = (name: string, text: string, files: Record<string, string>) => {
  const r = analyzeDocument("file://" + DOC, text, {}, fakeEnv({ ...files }, DOC));
  console.log("###", name, r.layoutName, JSON.stringify(r.precision?.paramStorage));
  for (const d of r.diagnostics) console.log("  ", d.code, d.severity, JSON.stringify(d.range), d.message, "|", d.data?.facts?.assumed, "|", d.detail?.slice(0, 150));
};
show("pinned trl", `${TRL}torch_dtype: bfloat16\n`, { "/w/requirements.txt": "trl==0.20.0\n", "/w/train.sh": TORCHRUN });
show("unpinned", `${TRL}torch_dtype: bfloat16\n`, { "/w/train.sh": TORCHRUN });
show("lr a.yaml", `# precision-lens: accelerate-config=a.yaml\n${TRL.replace("2.0e-5", "1.0e-6")}torch_dtype: bfloat16\nbf16: true\n`, { "/w/requirements.txt": "", "/w/recipes/a.yaml": "distributed_type: MULTI_GPU\nnum_processes: 2\n" });
show("fp16 ddp", `${TRL}torch_dtype: float16\nfp16: true\n`, { "/w/requirements.txt": "", "/w/train.sh": TORCHRUN });
show("fp16 none", `${TRL}torch_dtype: float16\nfp16: true\n`, { "/w/requirements.txt": "" });
show("broken", `${TRL}torch_dtype: bfloat16\nbf16: true\n`, { "/w/requirements.txt": "", "/w/train.sh": "accelerate launch --config_file configs/gone.yaml train.py recipes/sft.yaml\n" });
show("guessed", `${TRL}torch_dtype: bfloat16\nbf16: true\n`, { "/w/requirements.txt": "", "/w/train.sh": "accelerate launch train.py recipes/sft.yaml\n" });
