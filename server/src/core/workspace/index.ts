/** Workspace evidence for the analysers: torchtitan version pins and launch-script world sizes. */
export { inferVersion, findPin, interpretPin, versionForWindow, KEY_EVIDENCE, type VersionInference } from "./version";
export { inferWorldSize, scriptPassesFlag, worldSizeFromScript, type WorldSizeInference } from "./worldSize";
export { ancestorDirs } from "./paths";
