/**
 * GPU types: the one table of peak rates, memory and interconnect the throughput and memory estimates
 * use. Rates are DENSE tensor-core TFLOP/s (the data sheets print the 2:4-sparsity figure first; it is
 * twice these), `fp32` is the non-tensor-core FP32 rate PyTorch uses for float32 matmuls unless TF32 is
 * allowed. Bandwidths are per GPU, per direction, in GB/s (1e9 B/s).
 *
 * Sources (vendors' data sheets, read 2025):
 * - H100 SXM / H100 PCIe: NVIDIA H100 Tensor Core GPU data sheet (nvidia.com/en-us/data-center/h100/):
 *   SXM BF16 1,979 / FP8 3,958 / TF32 989 TFLOPS "with sparsity", FP32 67, 80 GB, NVLink 900 GB/s;
 *   PCIe BF16 1,513 / FP8 3,026 / TF32 756 sparse, FP32 51, 80 GB, PCIe Gen5 128 GB/s.
 * - H100 NVL: same data sheet (NVL: BF16 1,671 / FP8 3,341 / TF32 835 TFLOPS with sparsity, FP32 60, 94 GB,
 *   NVLink bridge 600 GB/s between pairs).
 * - H200 SXM: NVIDIA H200 data sheet (nvidia.com/en-us/data-center/h200/): same tensor rates as H100 SXM,
 *   141 GB HBM3e, NVLink 900 GB/s.
 * - A100 40 GB / 80 GB SXM: NVIDIA A100 data sheet (nvidia.com/en-us/data-center/a100/): BF16/FP16 312,
 *   TF32 156, FP32 19.5 TFLOPS dense, no FP8; NVLink 600 GB/s.
 * - B200: NVIDIA HGX B200 / DGX B200 data sheet (nvidia.com/en-us/data-center/hgx/): FP8 4.5 PFLOPS,
 *   BF16 2.25 PFLOPS, TF32 1.1 PFLOPS dense per GPU, FP32 75 TFLOPS, 180 GB HBM3e, NVLink 5 1.8 TB/s.
 * - MI300X: AMD Instinct MI300X data sheet (amd.com/en/products/accelerators/instinct/mi300/mi300x.html):
 *   BF16/FP16 1,307.4, FP8 2,614.9, TF32 653.7, FP32 163.4 TFLOPS dense, 192 GB HBM3, Infinity Fabric
 *   896 GB/s aggregate peer bandwidth.
 * - L40S: NVIDIA L40S data sheet (nvidia.com/en-us/data-center/l40s/): BF16 362.05 / FP8 733 / TF32
 *   183 TFLOPS dense (733 / 1,466 / 366 with sparsity), FP32 91.6, 48 GB GDDR6, PCIe Gen4 x16 64 GB/s, no NVLink.
 * - V100 SXM2 16/32 GB: NVIDIA V100 data sheet (nvidia.com/en-us/data-center/v100/): FP16 tensor 125 TFLOPS
 *   (dense: Volta has no sparsity), FP32 15.7, NVLink 300 GB/s; compute capability 7.0 (CUDA GPU list).
 * - T4: NVIDIA T4 data sheet (nvidia.com/en-us/data-center/tesla-t4/): FP16 tensor 65 TFLOPS, FP32 8.1, 16 GB
 *   GDDR6, PCIe Gen3 x16 32 GB/s; 7.5.
 * - GeForce RTX 2080 Ti: NVIDIA Turing architecture whitepaper (reference board): FP16 tensor with FP32 accumulate
 *   53.8 TFLOPS, FP32 13.4, 11 GB; 7.5.
 * - A10: NVIDIA A10 data sheet (nvidia.com/en-us/data-center/products/a10-gpu/): BF16 125 / TF32 62.5 TFLOPS dense
 *   (250 / 125 with sparsity), FP32 31.2, 24 GB GDDR6, PCIe Gen4 64 GB/s; 8.6.
 * - A10G (AWS G5): NVIDIA publishes no A10G data sheet; its rates are ASSUMED equal to the A10's (named assumption
 *   `a10g-rates`); 24 GB and 8.6 are AWS's and the CUDA GPU list's.
 * - L4: NVIDIA L4 data sheet (nvidia.com/en-us/data-center/l4/): BF16 242 / FP8 485 / TF32 120 TFLOPS with
 *   sparsity (121 / 242.5 / 60 dense), FP32 30.3, 24 GB GDDR6, PCIe Gen4 x16 64 GB/s; 8.9.
 * - A40: NVIDIA A40 data sheet (nvidia.com/en-us/data-center/a40/): BF16 149.7 / TF32 74.8 TFLOPS dense,
 *   FP32 37.4, 48 GB GDDR6; 8.6.
 * - RTX A6000: NVIDIA RTX A6000 data sheet (nvidia.com/en-us/design-visualization/rtx-a6000/): tensor 309.7 TFLOPS
 *   with sparsity (154.8 dense), TF32 77.4 dense, FP32 38.7, 48 GB GDDR6; 8.6.
 * - GeForce RTX 3090: NVIDIA Ampere GA102 whitepaper: FP16/BF16 tensor with FP32 accumulate 71 TFLOPS dense
 *   (142 with sparsity), TF32 35.6, FP32 35.6, 24 GB GDDR6X; 8.6.
 * - GeForce RTX 4090: NVIDIA Ada Lovelace architecture whitepaper: FP16/BF16 tensor with FP32 accumulate 165.2
 *   TFLOPS dense, FP8 330.3 dense, TF32 82.6, FP32 82.6, 24 GB GDDR6X; 8.9.
 * Volta and Turing (7.x) have no bf16 (and no TF32) tensor cores: their `bf16` and `tf32` rates are ASSUMED to be
 * the FP32 rate (named assumption `pre-ampere-bf16-rate`; bf16 there is emulated). The PCIe and workstation boards'
 * `gpusPerNode` (8) is an assumption; their intra-node rate is PCIe per direction (no NVLink assumed).
 * Inter-node bandwidth is not on any GPU data sheet: 400 Gb/s (50 GB/s) per GPU, the InfiniBand / RoCE
 * NDR rail of DGX/HGX systems, is assumed for all (assumption `internode_gbps_per_gpu`).
 */

import { table } from "../model/table";

export type GpuId = "h100-sxm" | "h100-pcie" | "h100-nvl" | "h200" | "a100-40gb" | "a100-80gb" | "b200" | "mi300x" | "l40s" | "v100-16gb" | "v100-32gb" | "t4" | "rtx-2080-ti" | "a10" | "a10g" | "l4" | "a40" | "rtx-a6000" | "rtx-3090" | "rtx-4090";

export interface GpuSpec {
  id: GpuId;
  label: string;
  /** HBM / GDDR capacity in bytes (data-sheet GB = 1e9 B). */
  memoryBytes: number;
  /** Dense peak TFLOP/s by compute dtype. `fp8` undefined: no FP8 tensor cores (float8 GEMMs unsupported). */
  tflops: { bf16: number; fp16: number; fp8?: number; tf32: number; fp32: number };
  /** Intra-node GPU-to-GPU bandwidth per direction, GB/s, and the node size it connects. */
  intraNodeGBps: number;
  gpusPerNode: number;
  /**
   * The compute capability torchtitan's hardware checks read (`has_cuda_capability` / `has_rocm_capability`):
   * CUDA SM major.minor from NVIDIA's CUDA GPU list (A100 8.0, L40S 8.9, H100/H200 9.0, B200 10.0), ROCm gfx
   * major.minor (MI300X gfx942 → 9.4); V100 7.0, T4 and RTX 20xx 7.5, A10/A10G/A40/RTX A6000/RTX 30xx 8.6,
   * L4/RTX 40xx 8.9.
   */
  capability: { cuda: readonly [number, number] } | { rocm: readonly [number, number] };
  source: string;
}

const GB = 1e9;

export const GPUS: Readonly<Record<GpuId, GpuSpec>> = table({
  "h100-sxm": {
    id: "h100-sxm",
    label: "H100 SXM 80GB",
    memoryBytes: 80 * GB,
    tflops: { bf16: 989.5, fp16: 989.5, fp8: 1979, tf32: 494.5, fp32: 67 },
    intraNodeGBps: 450,
    gpusPerNode: 8,
    capability: { cuda: [9, 0] },
    source: "NVIDIA H100 data sheet (SXM: 1,979 BF16 TFLOPS with sparsity = 989.5 dense; NVLink 900 GB/s bidirectional)",
  },
  "h100-pcie": {
    id: "h100-pcie",
    label: "H100 PCIe 80GB",
    memoryBytes: 80 * GB,
    tflops: { bf16: 756.5, fp16: 756.5, fp8: 1513, tf32: 378, fp32: 51 },
    intraNodeGBps: 64,
    gpusPerNode: 8,
    capability: { cuda: [9, 0] },
    source: "NVIDIA H100 data sheet (PCIe: 1,513 BF16 TFLOPS with sparsity; PCIe Gen5 128 GB/s bidirectional)",
  },
  "h100-nvl": {
    id: "h100-nvl",
    label: "H100 NVL 94GB",
    memoryBytes: 94 * GB,
    tflops: { bf16: 835.5, fp16: 835.5, fp8: 1670.5, tf32: 417.5, fp32: 60 },
    intraNodeGBps: 300,
    gpusPerNode: 8,
    capability: { cuda: [9, 0] },
    source: "NVIDIA H100 data sheet (NVL: 1,671 BF16 TFLOPS with sparsity = 835.5 dense; NVLink bridge 600 GB/s bidirectional)",
  },
  h200: {
    id: "h200",
    label: "H200 SXM 141GB",
    memoryBytes: 141 * GB,
    tflops: { bf16: 989.5, fp16: 989.5, fp8: 1979, tf32: 494.5, fp32: 67 },
    intraNodeGBps: 450,
    gpusPerNode: 8,
    capability: { cuda: [9, 0] },
    source: "NVIDIA H200 data sheet (SXM: same tensor-core rates as H100 SXM, 141 GB HBM3e, NVLink 900 GB/s)",
  },
  "a100-40gb": {
    id: "a100-40gb",
    label: "A100 SXM 40GB",
    memoryBytes: 40 * GB,
    tflops: { bf16: 312, fp16: 312, tf32: 156, fp32: 19.5 },
    intraNodeGBps: 300,
    gpusPerNode: 8,
    capability: { cuda: [8, 0] },
    source: "NVIDIA A100 data sheet (SXM: 312 BF16 TFLOPS dense, no FP8; NVLink 600 GB/s bidirectional)",
  },
  "a100-80gb": {
    id: "a100-80gb",
    label: "A100 SXM 80GB",
    memoryBytes: 80 * GB,
    tflops: { bf16: 312, fp16: 312, tf32: 156, fp32: 19.5 },
    intraNodeGBps: 300,
    gpusPerNode: 8,
    capability: { cuda: [8, 0] },
    source: "NVIDIA A100 data sheet (SXM 80GB: 312 BF16 TFLOPS dense, no FP8; NVLink 600 GB/s bidirectional)",
  },
  b200: {
    id: "b200",
    label: "B200 180GB",
    memoryBytes: 180 * GB,
    tflops: { bf16: 2250, fp16: 2250, fp8: 4500, tf32: 1100, fp32: 75 },
    intraNodeGBps: 900,
    gpusPerNode: 8,
    capability: { cuda: [10, 0] },
    source: "NVIDIA HGX/DGX B200 data sheet (per GPU: 2.25 PFLOPS BF16 dense, 4.5 FP8; 180 GB; NVLink 5 1.8 TB/s bidirectional)",
  },
  mi300x: {
    id: "mi300x",
    label: "MI300X 192GB",
    memoryBytes: 192 * GB,
    tflops: { bf16: 1307.4, fp16: 1307.4, fp8: 2614.9, tf32: 653.7, fp32: 163.4 },
    intraNodeGBps: 448,
    gpusPerNode: 8,
    capability: { rocm: [9, 4] },
    source: "AMD Instinct MI300X data sheet (1,307.4 BF16 TFLOPS dense; 192 GB HBM3; Infinity Fabric 896 GB/s aggregate)",
  },
  l40s: {
    id: "l40s",
    label: "L40S 48GB",
    memoryBytes: 48 * GB,
    tflops: { bf16: 362.05, fp16: 362.05, fp8: 733, tf32: 183, fp32: 91.6 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 9] },
    source: "NVIDIA L40S data sheet (362.05 BF16 TFLOPS dense, 733 FP8; 48 GB GDDR6; PCIe Gen4 x16, no NVLink)",
  },
  "v100-16gb": {
    id: "v100-16gb",
    label: "V100 SXM2 16GB",
    memoryBytes: 16 * GB,
    tflops: { bf16: 15.7, fp16: 125, tf32: 15.7, fp32: 15.7 },
    intraNodeGBps: 150,
    gpusPerNode: 8,
    capability: { cuda: [7, 0] },
    source: "NVIDIA V100 data sheet (SXM2: 125 FP16 tensor TFLOPS, 15.7 FP32; no bf16/TF32 tensor cores, bf16 assumed at the FP32 rate; NVLink 300 GB/s bidirectional)",
  },
  "v100-32gb": {
    id: "v100-32gb",
    label: "V100 SXM2 32GB",
    memoryBytes: 32 * GB,
    tflops: { bf16: 15.7, fp16: 125, tf32: 15.7, fp32: 15.7 },
    intraNodeGBps: 150,
    gpusPerNode: 8,
    capability: { cuda: [7, 0] },
    source: "NVIDIA V100 data sheet (SXM2 32GB: 125 FP16 tensor TFLOPS, 15.7 FP32; no bf16/TF32 tensor cores, bf16 assumed at the FP32 rate; NVLink 300 GB/s bidirectional)",
  },
  t4: {
    id: "t4",
    label: "T4 16GB",
    memoryBytes: 16 * GB,
    tflops: { bf16: 8.1, fp16: 65, tf32: 8.1, fp32: 8.1 },
    intraNodeGBps: 16,
    gpusPerNode: 8,
    capability: { cuda: [7, 5] },
    source: "NVIDIA T4 data sheet (65 FP16 tensor TFLOPS, 8.1 FP32; no bf16/TF32 tensor cores, bf16 assumed at the FP32 rate; 16 GB GDDR6; PCIe Gen3 x16 32 GB/s bidirectional)",
  },
  "rtx-2080-ti": {
    id: "rtx-2080-ti",
    label: "GeForce RTX 2080 Ti 11GB",
    memoryBytes: 11 * GB,
    tflops: { bf16: 13.4, fp16: 53.8, tf32: 13.4, fp32: 13.4 },
    intraNodeGBps: 16,
    gpusPerNode: 8,
    capability: { cuda: [7, 5] },
    source: "NVIDIA Turing architecture whitepaper (RTX 2080 Ti reference: 53.8 FP16 tensor TFLOPS with FP32 accumulate, 13.4 FP32; no bf16 tensor cores, bf16 assumed at the FP32 rate; 11 GB; PCIe Gen3 x16)",
  },
  a10: {
    id: "a10",
    label: "A10 24GB",
    memoryBytes: 24 * GB,
    tflops: { bf16: 125, fp16: 125, tf32: 62.5, fp32: 31.2 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 6] },
    source: "NVIDIA A10 data sheet (125 BF16 TFLOPS dense, 250 with sparsity; 31.2 FP32; 24 GB GDDR6; PCIe Gen4 64 GB/s bidirectional)",
  },
  a10g: {
    id: "a10g",
    label: "A10G 24GB",
    memoryBytes: 24 * GB,
    tflops: { bf16: 125, fp16: 125, tf32: 62.5, fp32: 31.2 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 6] },
    source: "AWS G5 (A10G, 24 GB, compute capability 8.6); no NVIDIA A10G data sheet: rates ASSUMED equal to the A10's (named assumption a10g-rates)",
  },
  l4: {
    id: "l4",
    label: "L4 24GB",
    memoryBytes: 24 * GB,
    tflops: { bf16: 121, fp16: 121, fp8: 242.5, tf32: 60, fp32: 30.3 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 9] },
    source: "NVIDIA L4 data sheet (242 BF16 / 485 FP8 TFLOPS with sparsity = 121 / 242.5 dense; 30.3 FP32; 24 GB GDDR6; PCIe Gen4 x16 64 GB/s bidirectional)",
  },
  a40: {
    id: "a40",
    label: "A40 48GB",
    memoryBytes: 48 * GB,
    tflops: { bf16: 149.7, fp16: 149.7, tf32: 74.8, fp32: 37.4 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 6] },
    source: "NVIDIA A40 data sheet (149.7 BF16 TFLOPS dense, 299.3 with sparsity; 37.4 FP32; 48 GB GDDR6; PCIe Gen4 64 GB/s bidirectional)",
  },
  "rtx-a6000": {
    id: "rtx-a6000",
    label: "RTX A6000 48GB",
    memoryBytes: 48 * GB,
    tflops: { bf16: 154.8, fp16: 154.8, tf32: 77.4, fp32: 38.7 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 6] },
    source: "NVIDIA RTX A6000 data sheet (309.7 tensor TFLOPS with sparsity = 154.8 dense; 38.7 FP32; 48 GB GDDR6; PCIe Gen4 x16)",
  },
  "rtx-3090": {
    id: "rtx-3090",
    label: "GeForce RTX 3090 24GB",
    memoryBytes: 24 * GB,
    tflops: { bf16: 71, fp16: 71, tf32: 35.6, fp32: 35.6 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 6] },
    source: "NVIDIA Ampere GA102 whitepaper (RTX 3090: 71 FP16/BF16 tensor TFLOPS with FP32 accumulate, dense; 35.6 FP32; 24 GB GDDR6X; PCIe Gen4 x16)",
  },
  "rtx-4090": {
    id: "rtx-4090",
    label: "GeForce RTX 4090 24GB",
    memoryBytes: 24 * GB,
    tflops: { bf16: 165.2, fp16: 165.2, fp8: 330.3, tf32: 82.6, fp32: 82.6 },
    intraNodeGBps: 32,
    gpusPerNode: 8,
    capability: { cuda: [8, 9] },
    source: "NVIDIA Ada Lovelace architecture whitepaper (RTX 4090: 165.2 FP16/BF16 tensor TFLOPS with FP32 accumulate, 330.3 FP8, dense; 82.6 FP32; 24 GB GDDR6X; PCIe Gen4 x16)",
  },
});

export const GPU_IDS = Object.keys(GPUS) as GpuId[];
export const DEFAULT_GPU: GpuId = "h100-sxm";

/** torchtitan's `has_cuda_capability(major, minor)`: a CUDA GPU at least that SM (false on ROCm). */
export function hasCudaCapability(g: GpuSpec, major: number, minor: number): boolean {
  return "cuda" in g.capability && (g.capability.cuda[0] > major || (g.capability.cuda[0] === major && g.capability.cuda[1] >= minor));
}

/** torchtitan's `has_rocm_capability(major, minor)`: a ROCm GPU at least that gfx version. */
export function hasRocmCapability(g: GpuSpec, major: number, minor: number): boolean {
  return "rocm" in g.capability && (g.capability.rocm[0] > major || (g.capability.rocm[0] === major && g.capability.rocm[1] >= minor));
}

/** Common spellings of the GPU ids (after lower-casing and `_`/spaces to `-`). */
const GPU_ALIASES: Readonly<Record<string, GpuId>> = table({
  h100: "h100-sxm",
  "h100-nvl-94gb": "h100-nvl",
  "h100-sxm5": "h100-sxm",
  h200: "h200",
  "h200-sxm": "h200",
  a100: "a100-80gb",
  "a100-80g": "a100-80gb",
  "a100-40g": "a100-40gb",
  "a100-sxm-80gb": "a100-80gb",
  "a100-sxm-40gb": "a100-40gb",
  "b200-sxm": "b200",
  // A bare "V100" names the 32 GB board (the DGX-1/DGX-2 one); the capability (7.0) is the same for both.
  v100: "v100-32gb",
  "v100-sxm": "v100-32gb",
  "v100-16g": "v100-16gb",
  "v100-32g": "v100-32gb",
  "tesla-t4": "t4",
  "tesla-v100": "v100-32gb",
  "2080ti": "rtx-2080-ti",
  "2080-ti": "rtx-2080-ti",
  "rtx-2080ti": "rtx-2080-ti",
  "rtx2080ti": "rtx-2080-ti",
  "3090": "rtx-3090",
  rtx3090: "rtx-3090",
  "4090": "rtx-4090",
  rtx4090: "rtx-4090",
  a6000: "rtx-a6000",
  "rtxa6000": "rtx-a6000",
});

/** Accepts the ids and a few common spellings ("H100", "h100_sxm", "A100-80GB", "MI300X"). */
export function parseGpu(raw: string | undefined): GpuId | undefined {
  if (!raw) return undefined;
  const k = raw.trim().toLowerCase().replace(/[_\s]+/g, "-").replace(/-?(sxm5?)$/, "-sxm");
  if ((GPU_IDS as string[]).includes(k)) return k as GpuId;
  return GPU_ALIASES[k];
}
