/**
 * The precision engine: simulates one torchtitan Llama3 training step per parallel layout and mechanism.
 * Pure functions, no editor or I/O dependencies.
 */
export { simulate } from "./simulate";
export { simulationToJson, renderSimulationMarkdown, renderDtypeTableMarkdown, overCapacity, lensMemory } from "./render";
export { formatBytes, DTYPE_BYTES, type EDType } from "./dtypes";
export { ASSUMPTIONS, type AssumptionName, type AssumptionUse } from "./assumptions";
export { modelArch, paramCounts, LLAMA3_FLAVORS, ffnHiddenDim } from "./models";
export { OP_NAMES, type OpName } from "./ops";
export type * from "./types";
export { simulationInputFromConfig, readFloat8, type DecidedInputs } from "./fromConfig";
export { GPUS, GPU_IDS, DEFAULT_GPU, parseGpu, type GpuId, type GpuSpec } from "./gpus";
export { estimateThroughput } from "./estimate";
export { CALIBRATED_MIN_PARAMS, shownTokensPerSecond, throughputToJson, type ThroughputEstimate, type ThroughputAlternative, type ThroughputJson } from "./throughput";
