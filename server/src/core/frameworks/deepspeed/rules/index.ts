/** The DeepSpeed rules (spec other-frameworks.md §5.4), in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { DS1 } from "./DS1";
import { DS2 } from "./DS2";
import { DS3 } from "./DS3";
import { DS4 } from "./DS4";
import { DS5 } from "./DS5";
import { DS6 } from "./DS6";
import { DS7 } from "./DS7";
import { DS8 } from "./DS8";
import { DS9 } from "./DS9";
import { DS10 } from "./DS10";
import { duplicateKey } from "./duplicate-key";
import { noBatchSize } from "./no-batch-size";
import { unknownPrecisionKey } from "./unknown-precision-key";

export const DEEPSPEED_RULES: readonly FrameworkRule<DeepSpeedContext>[] = [DS1, DS2, DS4, DS5, DS6, DS7, DS8, noBatchSize, unknownPrecisionKey, duplicateKey, DS3, DS9, DS10];
