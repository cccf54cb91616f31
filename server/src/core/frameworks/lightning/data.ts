/** Lightning's precision names (spec other-frameworks.md §3.2) and where Trainer arguments live. */

/** The precision values Lightning 2.x accepts. */
import { table } from "../../model/table";

export const CANONICAL = ["32-true", "64-true", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "transformer-engine", "transformer-engine-float16"];
/** Legacy aliases and what they run as. */
export const LEGACY: Readonly<Record<string, string>> = table({ "16": "16-mixed", bf16: "bf16-mixed", "32": "32-true", "64": "64-true" });
/** Near-misses users write, mapped to the precision a fix writes. */
export const GUESS: Readonly<Record<string, string>> = table({ fp16: "16-mixed", half: "16-mixed", "fp16-mixed": "16-mixed", mixed: "16-mixed", "bf16-amp": "bf16-mixed", bfloat16: "bf16-mixed", amp: "16-mixed", fp32: "32-true", float32: "32-true", "32-mixed": "32-true", "bf16-pure": "bf16-true", fp64: "64-true", double: "64-true" });
/** Trainer arguments that mark a Hydra trainer config group file. */
export const TRAINER_KEYS = ["precision", "strategy", "devices", "accelerator", "num_nodes", "max_epochs", "max_steps", "accumulate_grad_batches", "gradient_clip_val"];

/**
 * Where the Trainer arguments live: LightningCLI's `trainer:` (optionally under the `fit:` subcommand), and
 * the `lightning: trainer:` nesting of Stability's sgm/generative-models and CompVis latent-diffusion
 * configs (their main.py reads `config.lightning.trainer` into the Trainer).
 */
export const TRAINER_ROOTS: readonly string[][] = [["trainer"], ["fit", "trainer"], ["lightning", "trainer"]];
